// The steps of an in-place update, in the order the server's preconditions
// demand: set/cpu, set/memory, set/disk and set/node refuse a running VM, so
// a running VM is shut down first (gracefully, waiting until `stopped`) and
// started again after; start refuses a running VM and reboot a stopped one.
// A pure function of the current state and the desired inputs.
import type { VmInputs, VmState } from "../model";
import { currentDisk, nodeChange, sizeChange, targetRunning, triggersChanged } from "../model";

export type Step =
  /** graceful shutdown, wait for `stopped`, fall back to a hard stop after the timeout */
  | { kind: "shutdown"; reason: string }
  | { kind: "setCpu"; cpu: number; from?: number }
  | { kind: "setMemory"; memoryMb: number; from?: number }
  /** set/disk grows BY the difference */
  | { kind: "growDisk"; byGb: number; fromGb: number; toGb: number }
  /** set/node: streamed migration */
  | { kind: "migrate"; node: string; from?: string }
  /** streamed start */
  | { kind: "start"; reason: string }
  /** streamed reboot */
  | { kind: "reboot"; reason: string };

/**
 * `olds` is the VM as it is now (the update reads it from the server first);
 * an unknown power state counts as running (the default), and a shutdown of a
 * VM that turns out stopped is harmless.
 */
export function planUpdate(olds: VmState, news: VmInputs): Step[] {
  const wasRunning = olds.running ?? true;
  const wantRunning = targetRunning(news.running);

  const config: Step[] = [];
  const cpu = sizeChange(olds, "cpu", news.cpu);
  if (cpu !== undefined) config.push({ kind: "setCpu", cpu, from: olds.cpu });
  const memoryMb = sizeChange(olds, "memoryMb", news.memoryMb);
  if (memoryMb !== undefined) config.push({ kind: "setMemory", memoryMb, from: olds.memoryMb });
  const diskGb = sizeChange(olds, "diskGb", news.diskGb);
  if (diskGb !== undefined) {
    const fromGb = currentDisk(olds);
    if (diskGb > fromGb) config.push({ kind: "growDisk", byGb: diskGb - fromGb, fromGb, toGb: diskGb });
  }
  const node = nodeChange(olds, news.node);
  if (node !== undefined) config.push({ kind: "migrate", node, from: olds.node });

  const steps: Step[] = [];
  if (config.length > 0) {
    const what = config.map(shortName).join(", ");
    if (wasRunning) steps.push({ kind: "shutdown", reason: `to change ${what} (the server refuses while it runs)` });
    steps.push(...config);
    if (wantRunning) steps.push({ kind: "start", reason: wasRunning ? `after changing ${what}` : "running is true" });
    // A restart (or a first start) already applies new reboot triggers.
  } else if (wasRunning && !wantRunning) {
    steps.push({ kind: "shutdown", reason: "running is false" });
  } else if (!wasRunning && wantRunning) {
    steps.push({ kind: "start", reason: "running is true" });
  } else if (wasRunning && wantRunning && triggersChanged(olds, news.rebootTriggers)) {
    steps.push({ kind: "reboot", reason: "rebootTriggers changed" });
  }
  return steps;
}

function shortName(step: Step): string {
  switch (step.kind) {
    case "setCpu":
      return "cpu";
    case "setMemory":
      return "memory";
    case "growDisk":
      return "disk";
    case "migrate":
      return "node";
    default:
      return step.kind;
  }
}

/** One line per step, for logs and for PartialUpdateError's applied / notApplied. */
export function describeStep(step: Step): string {
  switch (step.kind) {
    case "shutdown":
      return `shut down (${step.reason})`;
    case "setCpu":
      return `set cpu ${step.from ?? "?"} -> ${step.cpu}`;
    case "setMemory":
      return `set memory ${step.from ?? "?"} -> ${step.memoryMb} MB`;
    case "growDisk":
      return `grow disk by ${step.byGb} GiB (${step.fromGb} -> ${step.toGb} GiB)`;
    case "migrate":
      return `migrate ${step.from ?? "?"} -> ${step.node}`;
    case "start":
      return `start (${step.reason})`;
    case "reboot":
      return `reboot (${step.reason})`;
  }
}
