// Benchmark: what a Vm costs the engine per resource. `pulumi up` of N Vms
// against the simulator with every step duration at zero (an install answers
// at once), beside `pulumi up` of N no-op dynamic resources (their provider's
// create returns at once: the engine's own floor). Same engine, same kind of
// backend, a fresh stack (and a fresh simulator) for every run.
//
// Run: `npm run build && node dist/bench/engine-overhead.js [--quick] [--reps N]`.
import * as fs from "node:fs";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { startSimulator } from "../simulator";
import { QUICK, aim, warmUp, median, msStr, newStack, runMain, spread } from "./common";

const NS = QUICK ? [3, 10] : [10, 25, 50];
const REPS = repsArg(QUICK ? 1 : 5);
/** The aim: the Vm's `pulumi up` within this factor of the floor's. */
const AIM_RATIO = 1.3;

function repsArg(fallback: number): number {
  const i = process.argv.indexOf("--reps");
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

interface Run {
  ms: number;
  /** engine events of the run, and how many of them are diagnostics (log lines) */
  events: number;
  diagnostics: number;
  stateBytes: number;
  /** simulator requests per VM (Vm runs only) */
  requests?: Record<string, number>;
}

function counter(): { onEvent: (e: EngineEvent) => void; events: number; diagnostics: number } {
  const c = {
    events: 0,
    diagnostics: 0,
    onEvent: (e: EngineEvent) => {
      c.events++;
      if (e.diagnosticEvent) c.diagnostics++;
    },
  };
  return c;
}

async function floorRun(n: number): Promise<Run> {
  const s = await newStack("noop", { count: n });
  try {
    const c = counter();
    const { ms } = await s.up({ onEvent: c.onEvent });
    return { ms, events: c.events, diagnostics: c.diagnostics, stateBytes: fs.statSync(s.stateFile()).size };
  } finally {
    await s.dispose();
  }
}

async function vmRun(n: number): Promise<Run> {
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  const s = await newStack("vms", { count: n, "goPveQemu:endpoint": sim.url });
  try {
    const c = counter();
    const { ms } = await s.up({ onEvent: c.onEvent });
    const made = sim.vms().length;
    if (made !== n) throw new Error(`expected ${n} VMs on the simulator, found ${made}`);
    const requests = Object.fromEntries(Object.entries(sim.stats().requests).map(([k, v]) => [k, v / n]));
    return { ms, events: c.events, diagnostics: c.diagnostics, stateBytes: fs.statSync(s.stateFile()).size, requests };
  } finally {
    await s.dispose();
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `engine overhead: pulumi up of N Vms (simulator, every step 0 ms, auto VMIDs, default --parallel) ` +
      `vs N no-op dynamic resources; fresh stack each run; ${REPS} interleaved repetition(s), medians${QUICK ? " (--quick)" : ""}`,
  );
  await warmUp();
  const floor = new Map<number, Run[]>(NS.map((n) => [n, []]));
  const vm = new Map<number, Run[]>(NS.map((n) => [n, []]));
  for (let r = 0; r < REPS; r++) {
    for (const n of NS) {
      // A B, then B A on the next repetition: drift on a shared machine hits both alike.
      const order = (r + NS.indexOf(n)) % 2 === 0 ? ["floor", "vm"] : ["vm", "floor"];
      for (const which of order) {
        if (which === "floor") floor.get(n)!.push(await floorRun(n));
        else vm.get(n)!.push(await vmRun(n));
      }
    }
    process.stderr.write(`engine-overhead: repetition ${r + 1}/${REPS} done\n`);
  }

  const t = (runs: Map<number, Run[]>, n: number): number => median(runs.get(n)!.map((x) => x.ms));
  console.log("");
  console.log(
    `  ${"N".padStart(3)}  ${"no-op floor (median [runs])".padEnd(40)}  ${"Vm (median [runs])".padEnd(40)}  Vm/floor`,
  );
  for (const n of NS) {
    const f = floor.get(n)!.map((x) => x.ms);
    const v = vm.get(n)!.map((x) => x.ms);
    console.log(
      `  ${String(n).padStart(3)}  ${spread(f).padEnd(40)}  ${spread(v).padEnd(40)}  ${(t(vm, n) / t(floor, n)).toFixed(2)}`,
    );
  }

  const lo = NS[0]!;
  const hi = NS[NS.length - 1]!;
  const slope = (runs: Map<number, Run[]>, a: number, b: number): number => (t(runs, b) - t(runs, a)) / (b - a);
  const fSlope = slope(floor, lo, hi);
  const vSlope = slope(vm, lo, hi);
  console.log("");
  console.log(`  marginal cost per resource, (t(${hi})-t(${lo}))/${hi - lo}:`);
  console.log(
    `    no-op floor ${msStr(fSlope)}, Vm ${msStr(vSlope)}, Vm/floor ${(vSlope / fSlope).toFixed(2)}, Vm - floor ${msStr(vSlope - fSlope)} per VM`,
  );
  if (NS.length >= 3) {
    // Linear growth: the slope of each segment is about the same.
    const segs = NS.slice(1).map((n, i) => [NS[i]!, n] as const);
    const show = (runs: Map<number, Run[]>): string =>
      segs.map(([a, b]) => `${a}->${b}: ${msStr(slope(runs, a, b))}`).join(", ");
    console.log(`    per segment (linear if alike): floor ${show(floor)}; Vm ${show(vm)}`);
  }
  // What a Vm adds per resource, beside the floor: log lines (each one an engine event) and state.
  const per = (runs: Map<number, Run[]>, key: "events" | "diagnostics" | "stateBytes"): number =>
    (median(runs.get(hi)!.map((x) => x[key])) - median(runs.get(lo)!.map((x) => x[key]))) / (hi - lo);
  console.log(
    `    per resource: engine events floor ${per(floor, "events").toFixed(1)}, Vm ${per(vm, "events").toFixed(1)} ` +
      `(diagnostics floor ${per(floor, "diagnostics").toFixed(1)}, Vm ${per(vm, "diagnostics").toFixed(1)}); ` +
      `state bytes floor ${per(floor, "stateBytes").toFixed(0)}, Vm ${per(vm, "stateBytes").toFixed(0)}`,
  );
  const req = vm.get(hi)![0]!.requests ?? {};
  console.log(
    `    simulator requests per Vm: ${Object.entries(req)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(", ")}`,
  );
  console.log("");
  for (const n of NS) aim(`engine-overhead-n${n}`, t(vm, n) / t(floor, n), "<=", AIM_RATIO);
}

runMain(main);
