// Benchmark: what this machine's install journal costs a fleet's creates. N
// creates of the lifecycle itself (no engine: the journal's share is not
// hidden behind the engine's work), 8 at a time as the engine runs them by
// default, against the simulator with every step duration at zero (an install
// answers at once, so the journal's writes are as dense as they can be),
// each with a stack identity and a URN, with the file journal and without
// one, interleaved. Beside the times, the journal's file-system calls per
// install (node:fs and node:fs/promises, counted by name while the journal
// run lasts).
//
// Run: `npm run build && node dist/bench/journal-cost.js [--quick] [--reps N] [--n N]`.
import * as os from "node:os";
import * as path from "node:path";
import { GoPveQemuClient } from "../provider/client";
import { create, fileJournal } from "../provider/lifecycle";
import type { LifecycleContext, VmInputs } from "../provider/lifecycle";
import { startSimulator } from "../simulator";
import { QUICK, aim, cpuMs, median, runMain, spread } from "./common";
// The module object itself (not a namespace copy): what the journal calls through, so counting sees its calls.
import fs = require("node:fs");
import { ProcessScope } from "../provider/lifecycle";

const N = numArg("--n", QUICK ? 20 : 100);
const REPS = numArg("--reps", QUICK ? 1 : 5);
const PARALLEL = 8;
/**
 * The aim: the CPU time of N creates with the journal within this factor of the same without it (CPU: the
 * journal's calls run on this process's thread, and wall time on a shared machine is mostly the others' load).
 * Its floor is one durable write per install (the VMID, the evidence a recovery needs): about 0.1 ms of CPU on
 * a quiet local disk, beside some 4 ms of a create whose install answers at once (the simulator's CPU included).
 */
const AIM_RATIO = 1.1;
/**
 * The aim: the journal's file-system calls per install, whatever N (nothing that grows with the folder): the
 * read before the install, one write of its VMID (writeFileSync's open, write and close, then the rename),
 * the removal at the end.
 */
const AIM_CALLS = 8;
const IDENTITY = "c0ffee00c0ffee00c0ffee00c0ffee00";

function numArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** Counts the calls to node:fs by name while `f` runs (and to node:fs/promises, as `promises.<name>`). */
async function counting<T>(f: () => Promise<T>): Promise<{ value: T; calls: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const restore: Array<() => void> = [];
  const wrap = (mod: Record<string, unknown>, prefix: string): void => {
    for (const [name, orig] of Object.entries(mod)) {
      if (typeof orig !== "function" || /^[A-Z]/.test(name)) continue;
      mod[name] = (...args: unknown[]) => {
        calls[prefix + name] = (calls[prefix + name] ?? 0) + 1;
        return (orig as (...a: unknown[]) => unknown)(...args);
      };
      restore.push(() => (mod[name] = orig));
    }
  };
  wrap(fs as unknown as Record<string, unknown>, "");
  wrap(fs.promises as unknown as Record<string, unknown>, "promises.");
  try {
    return { value: await f(), calls };
  } finally {
    for (const r of restore) r();
  }
}

interface Run {
  ms: number;
  cpu: number;
  calls: Record<string, number>;
}

async function run(withJournal: boolean): Promise<Run> {
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-journal-bench-"));
  const client = new GoPveQemuClient({ endpoint: sim.url });
  // One journal for the run, as the provider process has one.
  const journal = withJournal ? { journal: fileJournal(path.join(dir, "installs")) } : {};
  const quiet = (): void => undefined;
  // One scope for the run, as the provider process has one: the installs coordinate through it (VMIDs, names).
  const scope = new ProcessScope();
  const ctx = (i: number): LifecycleContext => ({
    process: scope,
    reporter: { info: quiet, warn: quiet, debug: quiet },
    client: () => client,
    connectionDefaults: { endpoint: sim.url },
    urn: `urn:pulumi:bench::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::vm${i}`,
    identity: IDENTITY,
    ...journal,
  });
  const inputs = { os: "ubuntu", version: "24.04" } as VmInputs;
  try {
    const t0 = performance.now();
    const cpu0 = cpuMs();
    const { calls } = await counting(async () => {
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < N; i = next++) await create(inputs, ctx(i));
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
    });
    const run = { ms: performance.now() - t0, cpu: cpuMs() - cpu0, calls };
    if (sim.vms().length !== N) throw new Error(`expected ${N} VMs on the simulator, found ${sim.vms().length}`);
    return run;
  } finally {
    await client.close();
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `journal cost: ${N} creates of the lifecycle, ${PARALLEL} at a time, against the simulator (every step 0 ms, auto VMIDs), ` +
      `with this machine's install journal and without; ${REPS} interleaved repetition(s), medians${QUICK ? " (--quick)" : ""}`,
  );
  // One untimed round of each: the first pays for cold module and file caches.
  if (!QUICK) for (const j of [true, false]) await run(j);
  const runs: Record<"journal" | "none", Run[]> = { journal: [], none: [] };
  for (let r = 0; r < REPS; r++) {
    const order = r % 2 === 0 ? [true, false] : [false, true];
    for (const j of order) runs[j ? "journal" : "none"].push(await run(j));
  }
  const ms = (k: "journal" | "none"): number[] => runs[k].map((x) => x.ms);
  const paired = median(runs.journal.map((x, i) => x.ms / runs.none[i]!.ms));
  const cpu = (k: "journal" | "none"): number => median(runs[k].map((x) => x.cpu));
  // The aim is on the paired CPU ratio (each journal run beside the run without it): drift cancels.
  const pairedCpu = median(runs.journal.map((x, i) => x.cpu / Math.max(1, runs.none[i]!.cpu)));
  console.log(`  no journal   ${spread(ms("none"))}   CPU ${(cpu("none") / 1000).toFixed(2)} s`);
  console.log(`  journal      ${spread(ms("journal"))}   CPU ${(cpu("journal") / 1000).toFixed(2)} s`);
  console.log(
    `  journal/none: ${(median(ms("journal")) / median(ms("none"))).toFixed(2)} (paired ${paired.toFixed(2)}), ` +
      `CPU ${(cpu("journal") / cpu("none")).toFixed(2)} (paired ${pairedCpu.toFixed(2)})`,
  );
  const last = runs.journal[runs.journal.length - 1]!.calls;
  const perInstall = Object.values(last).reduce((a, b) => a + b, 0) / N;
  console.log(
    `  the journal's file-system calls per install: ${perInstall.toFixed(2)} (` +
      Object.entries(last)
        .map(([k, v]) => `${k} ${(v / N).toFixed(2)}`)
        .join(", ") +
      ")",
  );
  console.log("");
  aim(`journal-cost-cpu-n${N}`, pairedCpu, "<=", AIM_RATIO);
  aim(`journal-fs-calls-per-install-n${N}`, perInstall, "<=", AIM_CALLS);
}

runMain(main);
