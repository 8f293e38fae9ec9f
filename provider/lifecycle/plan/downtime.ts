// What preview says of an update that takes a running VM down. The server
// refuses set/cpu, set/memory, set/disk and set/node while the VM runs, so
// such an update is a shutdown, the changes, and a start (planUpdate); the
// diff shows only `~ cpu: 2 => 4`. One sentence per VM names the changes, the
// steps, and that the VM is down meanwhile. A value not known until the
// deployment counts as a change: the shutdown may come.
import { UNKNOWN, currentDisk, isUnknown, nodeChange, sizeChange, targetRunning } from "../model";
import type { VmInputs, VmState } from "../model";
import { vmLabel } from "../core";

interface Change {
  /** `cpu 2 -> 4` */
  said: string;
  /** the update's step for it */
  step: string;
}

/** The sentence for an update of `old` to `news` that shuts the VM down, or undefined when it does not. */
export function downtimeOf(old: VmState, news: VmInputs): string | undefined {
  // A VM on record as stopped is not shut down; an unknown power state counts as running, as in planUpdate.
  if (old.running === false) return undefined;
  const changes = configChanges(old, news);
  if (changes.length === 0) return undefined;
  const restart = isUnknown(news.running) ? "start, unless running is false" : targetRunning(news.running) && "start";
  const steps = ["shutdown", ...changes.map((c) => c.step), ...(restart ? [restart] : [])];
  const after = restart ? "it is down meanwhile" : "it stays stopped (running: false)";
  const label = vmLabel(old.vmid, old.vmName);
  return `VM ${label} will be shut down for: ${changes.map((c) => c.said).join(", ")} (${steps.join(", ")}); ${after}`;
}

/** The changes the server refuses while the VM runs, in the update's order. */
function configChanges(old: VmState, news: VmInputs): Change[] {
  const out: Change[] = [];
  const cpu = isUnknown(news.cpu) ? UNKNOWN : sizeChange(old, "cpu", news.cpu);
  if (cpu !== undefined) out.push({ said: `cpu ${old.cpu ?? "?"} -> ${cpu}`, step: "set cpu" });
  const memory = isUnknown(news.memoryMb) ? UNKNOWN : sizeChange(old, "memoryMb", news.memoryMb);
  if (memory !== undefined) out.push({ said: `memory ${old.memoryMb ?? "?"} -> ${memory} MB`, step: "set memory" });
  const from = currentDisk(old);
  const disk = isUnknown(news.diskGb) ? UNKNOWN : sizeChange(old, "diskGb", news.diskGb);
  if (disk !== undefined && (typeof disk === "string" || disk > from))
    out.push({ said: `disk ${from} -> ${disk} GiB`, step: "grow disk" });
  const node = isUnknown(news.node) ? UNKNOWN : nodeChange(old, news.node);
  if (node !== undefined) out.push({ said: `node ${old.node ?? "?"} -> ${node}`, step: "migrate" });
  return out;
}
