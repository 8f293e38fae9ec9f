// One stack of the chaos campaign (chaos.ts): its program written to stack
// config, its round's `up` (interrupted as drawn), the drift made behind
// its back, and the recovery the docs tell a user to run
// (docs/failure-behaviour.md, docs/discover-and-recover.md). Every run's
// output is kept for the round's log folder and the invariants.
import type { SimulatorHandle } from "../simulator";
import type { Rng } from "../simulator/random";
import type { Program, StackDraw } from "./chaos-draw";
import { pendingOf, unconfirmed, vmsOf, type StateVm } from "./chaos-check";
import { killGroup, WAYS_IN, type CliStack, type WayIn } from "./cli-stack";

export interface ChaosStack {
  index: number;
  via: WayIn;
  cli: CliStack;
  program: Program;
  /** the stack's token and every password it was given: none may appear anywhere */
  secrets: string[];
  /** every resource name the stack ever declared (for "an error names its VM") */
  names: Set<string>;
  /** recovery ups refused until an unconfirmed VM's settle time (documented), waited for */
  refusedUntilSettled: number;
  /** the runs of the current round, in order: label -> output */
  runs: [string, string][];
}

/** Pulumi's exit code, or the signal that ended it. */
type Ended = { code: number | null; output: string; seconds: number };

async function run(st: ChaosStack, label: string, args: string[], boundMs: number): Promise<Ended> {
  const r = st.cli.start(args);
  // A run past the campaign's bound is killed (its group): the invariants then say what it left.
  const timer = setTimeout(() => killGroup(r.child.pid!, "SIGKILL"), boundMs);
  const end = await r.done;
  clearTimeout(timer);
  st.runs.push([label, `$ pulumi ${args.join(" ")}\nexit ${end.code ?? end.signal}\n${end.output}`]);
  return end;
}

async function cli(st: ChaosStack, label: string, args: string[]): Promise<Ended> {
  const end = await st.cli.cli(args);
  st.runs.push([label, `$ go-pve-qemu-pulumi ${args.join(" ")}\nexit ${end.code}\n${end.output}`]);
  return end;
}

/** Writes the program to stack config; each new VM gets a secret password (drawn, so replayable). */
export async function writeProgram(st: ChaosStack, program: Program, rng: Rng): Promise<void> {
  for (const name of Object.keys(program)) {
    if (st.names.has(name)) continue;
    st.names.add(name);
    const password = `Pw${rng.below(2 ** 30).toString(36)}x${rng.below(2 ** 30).toString(36)}`;
    st.secrets.push(password);
    await st.cli.run(["config", "set", "--secret", `password-${name}`, password]);
  }
  await st.cli.run(["config", "set", "vms", JSON.stringify(program)]);
  st.program = program;
}

export async function setToken(st: ChaosStack, token: string): Promise<void> {
  st.secrets.push(token);
  await st.cli.run(["config", "set", "--secret", `${WAYS_IN[st.via].ns}:token`, token]);
}

/** The round's `up`, interrupted as drawn; answers how it ended. */
export async function roundUp(st: ChaosStack, draw: StackDraw, sim: SimulatorHandle, boundMs: number) {
  const args = ["up", "--yes", "--skip-preview"];
  const r = st.cli.start(args);
  const timer = setTimeout(() => killGroup(r.child.pid!, "SIGKILL"), boundMs);
  const how = draw.interruption;
  let interrupted: string | undefined;
  if (how) {
    const ended = await Promise.race([r.done.then(() => true), sleep(how.afterMs).then(() => false)]);
    if (!ended) {
      interrupted = how.kind;
      await interrupt(r.child.pid!, how.kind, sim);
    }
  }
  const end = await r.done;
  clearTimeout(timer);
  st.runs.push([
    "up",
    `$ pulumi ${args.join(" ")}${interrupted ? ` (${interrupted} after ${how!.afterMs} ms)` : ""}\nexit ${end.code ?? end.signal}\n${end.output}`,
  ]);
  return { code: end.code, interrupted };
}

async function interrupt(pid: number, kind: string, sim: SimulatorHandle): Promise<void> {
  if (kind === "kill9") process.kill(pid, "SIGKILL");
  if (kind === "int1") killGroup(pid, "SIGINT");
  if (kind === "int2") {
    killGroup(pid, "SIGINT");
    await sleep(1_000);
    killGroup(pid, "SIGINT");
  }
  if (kind === "restart") await sim.restart({ downMs: 1_000 }); // a real process takes a while to come back
}

/** A change outside Pulumi to the drawn VM, if it is in state; answers what was done. */
export function drift(st: ChaosStack, state: StateVm[], d: NonNullable<StackDraw["drift"]>, sim: SimulatorHandle) {
  const vm = state.find((s) => s.resource === d.resource);
  const live = vm && sim.vm(vm.vmid);
  if (!vm || !live) return undefined;
  if (d.kind === "stop") sim.mutateVm(vm.vmid, { running: false });
  if (d.kind === "resize") sim.mutateVm(vm.vmid, { cpu: live.cpu >= 8 ? 1 : live.cpu + 1 });
  if (d.kind === "delete") sim.removeVm(vm.vmid);
  return `${d.kind} ${d.resource} (${vm.vmid})`;
}

export async function exportState(st: ChaosStack) {
  const r = await st.cli.run(["stack", "export"]);
  const deployment = (JSON.parse(r.output) as { deployment: Parameters<typeof vmsOf>[0] }).deployment;
  return { text: r.output, state: vmsOf(deployment, WAYS_IN[st.via].vmType), pending: pendingOf(deployment) };
}

/**
 * What the docs tell a user to do next: `pulumi cancel` after a killed
 * `pulumi` (its lock stays), `refresh` after a change outside Pulumi,
 * `recover` before and `recover --after` after the `up` when pending creates
 * are left, and `refresh` then `up` again when the `up`'s message says so.
 * Answers the recovery's seconds (to the end of its `up`) and its failure.
 */
export async function recoverStack(st: ChaosStack, o: { killed: boolean; drifted: boolean; boundMs: number }) {
  const t0 = Date.now();
  if (o.killed) await run(st, "cancel", ["cancel", "--yes"], o.boundMs);
  if (o.drifted) await run(st, "refresh", ["refresh", "--yes", "--skip-preview"], o.boundMs);
  const pending = (await exportState(st)).pending.length > 0;
  const problems: string[] = [];
  if (pending) {
    const r = await cli(st, "recover", ["recover", "--stack", st.cli.name]);
    if (r.code !== 0) problems.push(`recover exit ${r.code}: ${lastError(r.output)}`);
  }
  let up = await run(st, "up", ["up", "--yes", "--skip-preview"], o.boundMs);
  if (up.code !== 0 && /run `?pulumi refresh/.test(up.output)) {
    await run(st, "refresh (as the up said)", ["refresh", "--yes", "--skip-preview"], o.boundMs);
    up = await run(st, "up", ["up", "--yes", "--skip-preview"], o.boundMs);
  }
  // Documented (failure-behaviour.md, Ctrl-C): a change to an unconfirmed VM that would shut it down or
  // start it is refused, nothing changed, until the settle time the message names; then `up` again.
  const until = /can be settled from (\S+Z) at the latest; nothing was changed/.exec(up.output);
  if (up.code !== 0 && until) {
    st.refusedUntilSettled++;
    await sleep(Math.max(0, Date.parse(until[1]!) - Date.now()) + 1_000);
    up = await run(st, "up (after the settle time)", ["up", "--yes", "--skip-preview"], o.boundMs);
  }
  if (up.code !== 0) problems.push(`recovery up failed: ${lastError(up.output)}`);
  if (pending) await cli(st, "recover --after", ["recover", "--stack", st.cli.name, "--after"]);
  return { seconds: (Date.now() - t0) / 1000, problems };
}

/** Documented exemption: an unconfirmed VM is settled by the first `up` from its settle time. */
export async function settleUnconfirmed(st: ChaosStack, boundMs: number): Promise<string[]> {
  const held = unconfirmed((await exportState(st)).state);
  if (held.names.length === 0) return [];
  await sleep(Math.max(0, held.settleBy - Date.now()) + 1_000);
  await run(st, "up (settle)", ["up", "--yes", "--skip-preview"], boundMs);
  return held.names;
}

export async function previewNoChanges(st: ChaosStack, boundMs: number): Promise<Ended> {
  return run(st, "preview", ["preview", "--expect-no-changes"], boundMs);
}

export function lastError(output: string): string {
  const lines = output.split("\n").filter((l) => /error: /.test(l) && !/update failed/.test(l));
  return (lines.at(-1) ?? output.split("\n").filter(Boolean).at(-1) ?? "").trim().slice(0, 240);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
