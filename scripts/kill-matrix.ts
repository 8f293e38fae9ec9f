// The kill matrix: a deployment of three VMs (two pinned VMIDs, one auto)
// interrupted in every way a GitOps pipeline dies, each followed by `up` and
// then `destroy`, against the simulator through the real `pulumi` CLI.
//
//   npm run build && node dist/scripts/kill-matrix.js [--steps all|a,b,c] [--speed 50] [--bound 120] [--only kill9,term,int2,restart]
//
// Cells: kill -9 of `pulumi` when the first install reaches each step; SIGTERM
// to `pulumi`; a double Ctrl-C (SIGINT to pulumi's process group twice, 1 s
// apart); the server restarted (the simulator's restart: killed and back on
// the same port) when an install reaches each step. Per cell it prints: how the interrupted
// run ended, the pending operations it left, whether the next `up` and the
// `destroy` succeeded (after `pulumi cancel` when the interrupted run left
// its lock, the documented step for a killed runner), orphans (VMs on the server not in state after `up`),
// duplicates (VMs beyond one per declared resource), manual steps (a failed
// `up` or `destroy`, and each VM `destroy` left behind), leftover processes
// (the interrupted run's language host, program and provider still alive 10 s
// after its `pulumi` ended), seconds, and whether every run ended within its
// bound (a run past the bound is killed).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../simulator";
import { killGroup, newCliStack, waitFor, type CliStack } from "./cli-stack";
import { watchDeployment } from "./deployment-processes";
import { simulatedBounds } from "./sim-bounds";

// No `name`: the provider derives one from the stack and the resource, by
// which an interrupted create is recognised (a given name never is).
const VMS = {
  a: { os: "ubuntu", version: "24.04", vmid: 211 },
  b: { os: "debian", version: "12", vmid: 212 },
  c: { os: "rockylinux", version: "9" },
};
const DEFAULT_STEPS = [
  "checking VMID",
  "downloading OS image",
  "creating VM",
  "importing disk image",
  "initializing configuration",
  "waiting for ready",
  "SSH initialization",
  "finalizing",
];

interface Options {
  steps: string[] | "all";
  speed: number;
  boundSeconds: number;
  only: Set<string>;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    steps: DEFAULT_STEPS,
    speed: 50,
    boundSeconds: 120,
    only: new Set(["kill9", "term", "int2", "restart"]),
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1] ?? "";
    switch (argv[i]) {
      case "--steps":
        opts.steps = v === "all" ? "all" : v.split(",");
        i++;
        break;
      case "--speed":
        opts.speed = Number(v);
        i++;
        break;
      case "--bound":
        opts.boundSeconds = Number(v);
        i++;
        break;
      case "--only":
        opts.only = new Set(v.split(","));
        i++;
        break;
      default:
        throw new Error(`kill-matrix: unknown argument ${argv[i]}`);
    }
  }
  return opts;
}

interface Cell {
  cell: string;
  interrupted: string;
  pending: number;
  /** Whether the interrupted run left a lock, and `pulumi cancel` cleared it. */
  cancel: string;
  up: string;
  destroy: string;
  orphans: number;
  duplicates: number;
  manual: number;
  leftover: number;
  seconds: number;
  boundMet: boolean;
}

/** The simulator, with its VMs in a state file. */
class Server {
  sim!: SimulatorHandle;
  constructor(
    private readonly stateFile: string,
    private readonly speed: number,
  ) {}
  async start(): Promise<void> {
    this.sim = await startSimulator({ speed: this.speed, stateFile: this.stateFile });
  }
  /** The simulator's own restart: the process dies and comes back on the same port, half-made VMs stay half-made. */
  async restart(): Promise<void> {
    await this.sim.restart();
  }
}

type Interruption =
  { kind: "kill9" | "restart"; step: string } | { kind: "term" | "int2"; step: string } | { kind: "none" };

async function runCell(name: string, how: Interruption, opts: Options): Promise<Cell & { steps?: string[] }> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-kill-"));
  const server = new Server(path.join(scratch, "sim.json"), opts.speed);
  await server.start();
  const stack = await newCliStack({
    name: `km-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`.slice(0, 40),
    endpoint: server.sim.url,
    vms: VMS,
    config: { ...simulatedBounds(opts.speed), "goPveQemu:pollIntervalMs": "250" },
  });
  const bound = opts.boundSeconds * 1000;
  let boundMet = true;
  const t0 = Date.now();
  const leftovers: number[] = [];
  try {
    // 1. The deployment, interrupted. A 1 ms delay fault at the step marks the
    // moment the first install reaches it (the simulator counts fired faults).
    if (how.kind !== "none") server.sim.addFault({ op: "install", step: how.step, kind: "delay", ms: 1, times: 1 });
    const first = stack.start(["up", "--yes", "--skip-preview"]);
    const deployment = watchDeployment(first.child.pid!, stack.workDir);
    const helpers = () => childPids(first.child.pid!);
    let interrupted = "completed";
    if (how.kind !== "none") {
      const reached = await waitFor(() => server.sim.stats().faultsFired > 0, bound);
      if (!reached) interrupted = `step "${how.step}" never reached`;
      else {
        const kids = helpers();
        if (how.kind === "kill9") signalPid(first.child.pid!, "SIGKILL");
        if (how.kind === "term") signalPid(first.child.pid!, "SIGTERM");
        if (how.kind === "int2") {
          killGroup(first.child.pid!, "SIGINT");
          await new Promise((r) => setTimeout(r, 1000));
          killGroup(first.child.pid!, "SIGINT");
        }
        if (how.kind === "restart") await server.restart();
        leftovers.push(...kids);
      }
    }
    const firstEnd = await withBound(first, bound);
    boundMet &&= firstEnd.inBound;
    if (how.kind !== "none" && !interrupted.startsWith("step")) {
      interrupted = `${how.kind}: exit ${firstEnd.code ?? firstEnd.signal} after ${firstEnd.seconds.toFixed(1)}s`;
    }
    const leftover = (await deployment.leftoversAfter(10_000)).length;
    // The killed engine's language host and provider have process groups of their own.
    for (const pid of leftovers) killGroup(pid, "SIGKILL");
    const pending = stack.pendingOperations();
    // A killed `pulumi` leaves the backend's lock; `pulumi cancel` is the documented way to clear it.
    const cancelled = stack.locked() ? (await stack.run(["cancel", "--yes"])).code === 0 : undefined;
    const steps = how.kind === "none" ? stepsIn(first.output()) : undefined;

    // 2. The next up, 3. destroy.
    const up = await withBound(stack.start(["up", "--yes", "--skip-preview"]), bound);
    boundMet &&= up.inBound;
    const onServer = server.sim.vms();
    const inState = new Set(stack.vmidsInState());
    const orphans = onServer.filter((v) => !inState.has(v.vmid)).length;
    const declared = new Set(onServer.map((v) => v.name.replace(/-\d+$/, "")));
    const duplicates = onServer.length - declared.size;
    const destroy = await withBound(stack.start(["destroy", "--yes", "--skip-preview"]), bound);
    boundMet &&= destroy.inBound;
    const left = server.sim.vms().length;
    const manual = (up.code === 0 ? 0 : 1) + (destroy.code === 0 ? 0 : 1) + left;
    return {
      cell: name,
      interrupted,
      pending,
      cancel: cancelled === undefined ? "-" : cancelled ? "cleared" : "FAILED",
      up: up.code === 0 ? `ok ${up.seconds.toFixed(1)}s` : `FAILED ${up.seconds.toFixed(1)}s: ${firstError(up.output)}`,
      destroy: destroy.code === 0 ? "ok" : `FAILED: ${firstError(destroy.output)}`,
      orphans,
      duplicates,
      manual,
      leftover,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
      boundMet,
      ...(steps ? { steps } : {}),
    };
  } finally {
    await server.sim.close();
    stack.dispose();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Waits for a run; past the bound it is killed (its whole process group) and reported as out of bound. */
async function withBound(run: ReturnType<CliStack["start"]>, ms: number) {
  const timer = setTimeout(() => killGroup(run.child.pid!, "SIGKILL"), ms);
  const r = await run.done;
  clearTimeout(timer);
  return { ...r, inBound: r.seconds * 1000 < ms };
}

/** The direct children of a process (the language host, the provider), read from /proc. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The install steps in the order an uninterrupted run printed them. */
function stepsIn(output: string): string[] {
  const seen: string[] = [];
  for (const m of output.matchAll(/install \[\d+\/\d+\] [^>\n]+> ([^:\n]+):/g)) {
    if (!seen.includes(m[1]!)) seen.push(m[1]!);
  }
  return seen;
}

function firstError(output: string): string {
  const line = output.split("\n").find((l) => /error: /.test(l) && !/update failed/.test(l));
  return (line ?? output.split("\n").filter(Boolean).at(-1) ?? "").trim().slice(0, 160);
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // it ended already
  }
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  console.log(
    `kill matrix: 3 VMs (2 pinned VMIDs, 1 auto), simulator speed ${opts.speed}, bound ${opts.boundSeconds}s per run`,
  );
  const baseline = await runCell("baseline (no interruption)", { kind: "none" }, opts);
  print(baseline);
  const steps = opts.steps === "all" ? (baseline.steps ?? []) : opts.steps;
  const cells: Cell[] = [baseline];
  const plan: [string, Interruption][] = [];
  if (opts.only.has("kill9")) for (const s of steps) plan.push([`kill -9 at ${s}`, { kind: "kill9", step: s }]);
  if (opts.only.has("term")) plan.push(["SIGTERM to pulumi", { kind: "term", step: "creating VM" }]);
  if (opts.only.has("int2")) plan.push(["double Ctrl-C", { kind: "int2", step: "creating VM" }]);
  if (opts.only.has("restart"))
    for (const s of steps) plan.push([`server restart at ${s}`, { kind: "restart", step: s }]);
  for (const [name, how] of plan) {
    const cell = await runCell(name, how, opts);
    cells.push(cell);
    print(cell);
  }
  const bad = cells.filter((c) => c.orphans + c.duplicates + c.manual + c.leftover > 0 || !c.boundMet);
  console.log(
    `\nsummary: ${cells.length} cells; orphans ${sum(cells, "orphans")}, duplicates ${sum(cells, "duplicates")}, ` +
      `manual steps ${sum(cells, "manual")}, leftover processes ${sum(cells, "leftover")}, bound missed ${cells.filter((c) => !c.boundMet).length}; ` +
      `${bad.length === 0 ? "all clean" : `not clean: ${bad.map((c) => c.cell).join("; ")}`}`,
  );
}

function print(c: Cell): void {
  console.log(
    `${c.cell.padEnd(40)} | ${c.interrupted.padEnd(34)} | pending ${c.pending} | lock ${c.cancel} | up ${c.up} | destroy ${c.destroy} | ` +
      `orphans ${c.orphans} | duplicates ${c.duplicates} | manual ${c.manual} | leftover ${c.leftover} | ${c.seconds}s | bound ${c.boundMet ? "met" : "MISSED"}`,
  );
}

function sum(cells: Cell[], key: "orphans" | "duplicates" | "manual" | "leftover"): number {
  return cells.reduce((n, c) => n + c[key], 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
