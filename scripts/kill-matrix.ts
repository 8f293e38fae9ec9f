// The kill matrix: a deployment of one VM of each kind (a name and a pinned
// VMID, a name and the server's VMID, neither) interrupted in every way a
// GitOps pipeline dies, at each install step, each followed by what the next
// run does and then `destroy`, against the simulator through the real
// `pulumi` CLI (kill-cell.ts runs one cell).
//
//   npm run build && node dist/scripts/kill-matrix.js [--steps all|a,b,c] [--speed 50] [--bound 120]
//     [--only kill9,int1,int2,pg,term,restart] [--via dynamic|plugin|both]
//
// Interruptions: kill -9 of `pulumi` (the next run on the same machine: its
// install journal survives); one Ctrl-C (SIGINT to pulumi's process group); a double Ctrl-C (SIGINT to pulumi's process
// group twice, 1 s apart); a runner killed with its state in PostgreSQL (the
// next run is a new runner, without the journal, through the pipeline's steps
// `recover`, `up`, `recover --after`; needs Debian's postgresql package);
// SIGTERM to `pulumi`; the server restarted. Per cell: how the interrupted
// run ended, the pending operations it left and how many the next run left
// (a plain `up` cannot clear them: `recover --after` does), whether the next `up` (with its time) and the
// `destroy` succeeded, whether a preview once the server is idle plans nothing (`--expect-no-changes`) or only the recording of VMs whose settle time passed, orphans (VMs on the server not in state after `up`),
// duplicates (VMs beyond one per declared resource), the manual steps taken
// (listed), the interrupted run's processes still alive 10 s after it ended,
// seconds, and whether every run ended within its bound. `--via plugin`
// declares the Vms through the resource plugin (gopveqemu:index:Vm, settings
// gopveqemu:*); its `pg` cells need a `recover` that reads that way in's
// pending creates.
import { WAYS_IN, type WayIn } from "./cli-stack";
import { findPostgres, startPostgres, type Postgres } from "./postgres";
import { VMS, runCell, type Cell, type CellOptions, type Interruption } from "./kill-cell";

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
const KINDS = ["kill9", "int1", "int2", "pg", "term", "restart"] as const;
type Kind = (typeof KINDS)[number];

interface Options extends CellOptions {
  steps: string[] | "all";
  only: Set<Kind>;
  /** both ways in, one matrix after the other */
  both?: boolean;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = { steps: DEFAULT_STEPS, speed: 50, boundSeconds: 120, only: new Set(KINDS) };
  for (let i = 0; i < argv.length; i += 2) {
    const v = argv[i + 1] ?? "";
    if (argv[i] === "--steps") opts.steps = v === "all" ? "all" : v.split(",");
    else if (argv[i] === "--speed") opts.speed = Number(v);
    else if (argv[i] === "--bound") opts.boundSeconds = Number(v);
    else if (argv[i] === "--only") {
      const kinds = v.split(",");
      const bad = kinds.find((k) => !(KINDS as readonly string[]).includes(k));
      if (bad) throw new Error(`kill-matrix: --only ${bad}: allowed ${KINDS.join(", ")}`);
      opts.only = new Set(kinds as Kind[]);
    } else if (argv[i] === "--via") {
      if (v === "both") opts.both = true;
      else if (!(v in WAYS_IN))
        throw new Error(`kill-matrix: --via ${v}: allowed ${[...Object.keys(WAYS_IN), "both"].join(", ")}`);
      else opts.via = v as WayIn;
    } else throw new Error(`kill-matrix: unknown argument ${argv[i]}`);
  }
  return opts;
}

/** The cells to run: each kind at each step (SIGTERM once, it only matters while an install runs). */
function planOf(opts: Options, steps: string[]): [string, Interruption][] {
  const plan: [string, Interruption][] = [];
  const at = (kind: Kind, label: string) => {
    if (opts.only.has(kind)) for (const s of steps) plan.push([`${label} at ${s}`, { kind, step: s }]);
  };
  at("kill9", "kill -9");
  at("int1", "one Ctrl-C");
  at("int2", "double Ctrl-C");
  at("pg", "runner killed (PostgreSQL)");
  if (opts.only.has("term")) plan.push(["SIGTERM to pulumi", { kind: "term", step: "creating VM" }]);
  at("restart", "server restart");
  return plan;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (!opts.both) return matrix(opts);
  for (const via of Object.keys(WAYS_IN) as WayIn[]) await matrix({ ...opts, via, only: new Set(opts.only) });
}

async function matrix(opts: Options): Promise<void> {
  if (opts.via === "plugin" && opts.only.delete("pg"))
    console.log(
      "the pg cells are skipped on the resource plugin: their new runner's `recover` reads the dynamic provider's pending creates only",
    );
  let pg: Postgres | undefined;
  if (opts.only.has("pg")) {
    const found = findPostgres();
    if (!("bin" in found)) throw new Error(`kill-matrix: the pg cells need PostgreSQL: ${found.reason}`);
    pg = await startPostgres(found.bin);
    opts.pgUrl = pg.url;
  }
  try {
    console.log(
      `kill matrix: ${Object.keys(VMS).length} VMs (named+pinned, named+auto, unnamed+auto), ` +
        `simulator speed ${opts.speed}, bound ${opts.boundSeconds}s per run, via ${opts.via ?? "dynamic"}`,
    );
    const baseline = await runCell("baseline (no interruption)", { kind: "none" }, opts);
    print(baseline);
    const steps = opts.steps === "all" ? (baseline.installSteps ?? []) : opts.steps;
    const cells: Cell[] = [baseline];
    for (const [name, how] of planOf(opts, steps)) {
      const cell = await runCell(name, how, opts);
      cells.push(cell);
      print(cell);
    }
    summary(cells);
  } finally {
    await pg?.stop();
  }
}

function print(c: Cell): void {
  const manual = c.steps.length === 0 ? "manual 0" : `manual ${c.steps.length} (${c.steps.join("; ")})`;
  console.log(
    `${c.cell.padEnd(48)} | ${c.interrupted.padEnd(30)} | pending ${c.pending}, left ${c.pendingLeft} | up ${c.up} | preview ${c.preview} | destroy ${c.destroy} | ` +
      `orphans ${c.orphans} | duplicates ${c.duplicates} | ${manual} | leftover ${c.leftover} | ${c.seconds}s | bound ${c.boundMet ? "met" : "MISSED"}`,
  );
}

function summary(cells: Cell[]): void {
  const sum = (f: (c: Cell) => number) => cells.reduce((n, c) => n + f(c), 0);
  const bad = cells.filter(
    (c) => c.orphans + c.duplicates + c.leftover > 0 || !c.boundMet || c.preview.startsWith("NOT EMPTY"),
  );
  const steps = cells.flatMap((c) => c.steps.map((s) => `${c.cell}: ${s}`));
  console.log(
    `\nsummary: ${cells.length} cells; orphans ${sum((c) => c.orphans)}, duplicates ${sum((c) => c.duplicates)}, ` +
      `manual steps ${steps.length}, previews planning more than a confirmation ${cells.filter((c) => c.preview.startsWith("NOT EMPTY")).length}, leftover processes ${sum((c) => c.leftover)}, bound missed ${cells.filter((c) => !c.boundMet).length}; ` +
      `${bad.length === 0 ? "no orphan, no duplicate, nothing left running" : `not clean: ${bad.map((c) => c.cell).join("; ")}`}`,
  );
  for (const s of steps) console.log(`  manual step: ${s}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
