// One cell of the kill matrix (kill-matrix.ts): a deployment interrupted in
// one way at one install step, then what the next run does to converge (the
// same machine's `pulumi up`, or a new runner's pipeline steps), then
// a preview that must plan nothing once the server is idle, then `destroy`;
// counted: orphans, duplicates, the manual steps a person had to take (each
// listed), and the processes the interrupted run left.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../simulator";
import { killGroup, newCliStack, waitFor, type CliStack, type WayIn } from "./cli-stack";
import { watchDeployment } from "./deployment-processes";
import { simulatedBounds } from "./sim-bounds";

/**
 * One VM of each kind whose interrupted create must converge: a name given and
 * a VMID pinned, a name given and the VMID the server's, neither.
 */
export const VMS = {
  np: { os: "ubuntu", version: "24.04", name: "np", vmid: 211 },
  na: { os: "debian", version: "12", name: "na" },
  ua: { os: "rockylinux", version: "9" },
};

export type Interruption =
  /** the runner killed (kill -9) with its state in PostgreSQL; the next run is a new runner's pipeline */
  { kind: "kill9" | "int1" | "int2" | "term" | "restart" | "pg"; step: string } | { kind: "none" };

export interface CellOptions {
  speed: number;
  boundSeconds: number;
  /** PostgreSQL URL for the `pg` cells */
  pgUrl?: string;
  /** The way in the Vms go through (default: the dynamic provider) */
  via?: WayIn;
}

export interface Cell {
  cell: string;
  interrupted: string;
  pending: number;
  /** the pending operations still in state after the next run (Pulumi carries pending creates over until told) */
  pendingLeft: number;
  up: string;
  /**
   * `pulumi preview --expect-no-changes` once the server is idle after the next up: "empty"; "confirms N"
   * when all it plans is recording N unconfirmed VMs as installed (their settle time has passed: the next
   * up writes that); else what it planned
   */
  preview: string;
  destroy: string;
  orphans: number;
  duplicates: number;
  /** each step a person had to take, in words */
  steps: string[];
  leftover: number;
  seconds: number;
  boundMet: boolean;
  /** the baseline's install steps, in the order they ran */
  installSteps?: string[];
}

export async function runCell(name: string, how: Interruption, opts: CellOptions): Promise<Cell> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-kill-"));
  const sim = await startSimulator({ speed: opts.speed, stateFile: path.join(scratch, "sim.json") });
  const stack = await newCliStack({
    name: `km-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`.slice(0, 40),
    endpoint: sim.url,
    vms: VMS,
    config: { ...simulatedBounds(opts.speed), "goPveQemu:pollIntervalMs": "250" },
    ...(how.kind === "pg" && opts.pgUrl ? { backendUrl: opts.pgUrl } : {}),
    ...(opts.via ? { via: opts.via } : {}),
  });
  const t0 = Date.now();
  try {
    const first = await interrupt(stack, sim, how, opts);
    const next = how.kind === "pg" ? await newRunner(stack, opts, scratch) : await sameMachine(stack, opts);
    // What the interrupted run began and the server still carries out ends first: a VM it makes later counts too.
    await sim.idle();
    const counted = await count(stack, sim);
    const preview = await bounded(stack.start(["preview", "--expect-no-changes"]), opts);
    const destroy = await bounded(stack.start(["destroy", "--yes", "--skip-preview"]), opts);
    const left = sim.vms().length;
    const steps = [...next.steps, ...(destroy.code === 0 ? [] : ["destroy failed"])];
    for (let i = 0; i < left; i++) steps.push("a VM destroy left on the server, removed by hand");
    return {
      cell: name,
      interrupted: first.interrupted,
      pending: first.pending,
      pendingLeft: next.pendingLeft,
      up: next.up,
      preview: previewVerdict(preview.code, preview.output),
      destroy: destroy.code === 0 ? "ok" : `FAILED: ${firstError(destroy.output)}`,
      ...counted,
      steps,
      leftover: first.leftover,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
      boundMet: first.inBound && next.inBound && preview.inBound && destroy.inBound,
      ...(first.installSteps ? { installSteps: first.installSteps } : {}),
    };
  } finally {
    await sim.close();
    stack.dispose();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The deployment, interrupted when the first install reaches the step (a 1 ms delay fault marks that moment). */
async function interrupt(stack: CliStack, sim: SimulatorHandle, how: Interruption, opts: CellOptions) {
  if (how.kind !== "none") sim.addFault({ op: "install", step: how.step, kind: "delay", ms: 1, times: 1 });
  const run = stack.start(["up", "--yes", "--skip-preview"]);
  const deployment = watchDeployment(run.child.pid!, stack.workDir);
  let interrupted = "completed";
  if (how.kind !== "none") {
    if (!(await waitFor(() => sim.stats().faultsFired > 0, opts.boundSeconds * 1000))) {
      interrupted = `step "${how.step}" never reached`;
    } else await signal(run.child.pid!, how, sim);
  }
  const end = await bounded(run, opts);
  if (how.kind !== "none" && !interrupted.startsWith("step")) {
    interrupted = `${how.kind}: exit ${end.code ?? end.signal} after ${end.seconds.toFixed(1)}s`;
  }
  const left = await deployment.leftoversAfter(10_000);
  for (const proc of left) killGroup(proc.pid, "SIGKILL"); // counted; not left to disturb the next cells
  const installSteps = how.kind === "none" ? stepsIn(end.output) : undefined;
  return {
    interrupted,
    pending: await stack.pendingOperations(),
    leftover: left.length,
    inBound: end.inBound,
    installSteps,
  };
}

async function signal(pid: number, how: Interruption, sim: SimulatorHandle): Promise<void> {
  if (how.kind === "kill9" || how.kind === "pg") process.kill(pid, "SIGKILL");
  if (how.kind === "term") process.kill(pid, "SIGTERM");
  if (how.kind === "int1") killGroup(pid, "SIGINT");
  if (how.kind === "int2") {
    killGroup(pid, "SIGINT");
    await new Promise((r) => setTimeout(r, 1000));
    killGroup(pid, "SIGINT");
  }
  if (how.kind === "restart") await sim.restart({ downMs: 2_000 }); // a real process takes a while to come back
}

/** The same machine runs `pulumi up` again (after `pulumi cancel`, the documented step, when a lock was left). */
async function sameMachine(stack: CliStack, opts: CellOptions) {
  await stack.run(["cancel", "--yes"]);
  const up = await bounded(stack.start(["up", "--yes", "--skip-preview"]), opts);
  return {
    up: up.code === 0 ? `ok ${up.seconds.toFixed(1)}s` : `FAILED ${up.seconds.toFixed(1)}s: ${firstError(up.output)}`,
    steps: up.code === 0 ? [] : [`up failed: ${firstError(up.output)}`],
    inBound: up.inBound,
    pendingLeft: await stack.pendingOperations(),
  };
}

/**
 * A new runner (its own, empty install journal) runs the GitOps pipeline's
 * steps: `pulumi cancel` for the killed runner's lock, `recover`, `up`,
 * `recover --after`. A pending create `recover` cannot decide alone is one
 * manual step: the person says which VM it is (`--adopt`), as the message says.
 */
async function newRunner(stack: CliStack, opts: CellOptions, scratch: string) {
  const runner = { GO_PVE_QEMU_JOURNAL_DIR: path.join(scratch, "new-runner-journal") };
  const steps: string[] = [];
  await stack.run(["cancel", "--yes"], runner);
  let recover = await stack.cli(["recover", "--stack", stack.name], runner);
  if (recover.code === 3) {
    for (const m of recover.output.matchAll(/--adopt '([^']+)=<vmid>'/g)) {
      const vmid = candidateOf(recover.output, m[1]!);
      steps.push(`recover --adopt ${m[1]!.split("::").pop()}=${vmid}`);
      recover = await stack.cli(["recover", "--stack", stack.name, "--adopt", `${m[1]}=${vmid}`], runner);
    }
  }
  const up = await bounded(stack.start(["up", "--yes", "--skip-preview"], runner), opts);
  await stack.cli(["recover", "--stack", stack.name, "--after"], runner);
  if (up.code !== 0) steps.push(`up failed: ${firstError(up.output)}`);
  return {
    pendingLeft: await stack.pendingOperations(),
    up: up.code === 0 ? `ok ${up.seconds.toFixed(1)}s` : `FAILED ${up.seconds.toFixed(1)}s: ${firstError(up.output)}`,
    steps,
    inBound: up.inBound,
  };
}

/** The one VM recover named for this pending create (the person's choice; the matrix knows there is one). */
function candidateOf(output: string, urn: string): number {
  const line = output.split("\n").find((l) => l.includes(urn)) ?? "";
  const m = /and ([a-z0-9-]+?)-(\d+)(?:, | carr)/.exec(line);
  return m ? Number(m[2]) : 0;
}

/** Orphans (VMs on the server that no state holds) and duplicates (VMs beyond one per declared resource). */
async function count(stack: CliStack, sim: SimulatorHandle) {
  const onServer = sim.vms();
  const inState = new Set(await stack.vmidsInState());
  const perResource = new Map<string, number>();
  for (const vm of onServer) {
    const resource = vm.name.replace(/-\d+$/, "").replace(/-[0-9a-f]{8}-[0-9a-z]{1,7}$/, "");
    perResource.set(resource, (perResource.get(resource) ?? 0) + 1);
  }
  return {
    orphans: onServer.filter((v) => !inState.has(v.vmid)).length,
    duplicates: [...perResource.values()].reduce((n, c) => n + c - 1, 0),
  };
}

/** Waits for a run; past the bound it is killed (its whole process group) and reported as out of bound. */
async function bounded(run: ReturnType<CliStack["start"]>, opts: CellOptions) {
  const timer = setTimeout(() => killGroup(run.child.pid!, "SIGKILL"), opts.boundSeconds * 1000);
  const r = await run.done;
  clearTimeout(timer);
  return { ...r, inBound: r.seconds < opts.boundSeconds };
}

/** The install steps in the order an uninterrupted run printed them. */
function stepsIn(output: string): string[] {
  const seen: string[] = [];
  for (const m of output.matchAll(/install \[\d+\/\d+\] [^>\n]+> ([^:\n]+):/g)) {
    if (!seen.includes(m[1]!)) seen.push(m[1]!);
  }
  return seen;
}

/** What the preview planned, in the words of the Cell's `preview`. */
function previewVerdict(code: number | null, output: string): string {
  if (code === 0) return "empty";
  // The engine prints each warning more than once (live, then under Diagnostics): count VMs, not lines.
  const confirms = new Set(
    [...output.matchAll(/VM (\S+ \(\d+\)): [^\n]*as the server shows it now, up records it as installed/g)].map(
      (m) => m[1],
    ),
  ).size;
  const updates = Number(/~ (\d+) to update/.exec(output)?.[1] ?? 0);
  const others = /\d+ to (create|delete|replace)/.test(output);
  if (confirms > 0 && updates === confirms && !others) return `confirms ${confirms}`;
  return `NOT EMPTY: ${firstError(output)}`;
}

function firstError(output: string): string {
  const line = output.split("\n").find((l) => /error: /.test(l) && !/update failed/.test(l));
  return (line ?? output.split("\n").filter(Boolean).at(-1) ?? "").trim().slice(0, 160);
}
