// Benchmark: 10 installs at once. The simulator runs its default step
// durations (an install with a cached image, SSH key present: 178 simulated
// seconds) at a speed that makes one install take ~2.5 s of wall time. Four
// `pulumi up`s, each on a fresh stack and a fresh simulator:
//   (a) 10 VMs with pinned VMIDs, --parallel 10
//   (b) 10 VMs with auto-assigned VMIDs, --parallel 10 (the provider lets one
//       auto install at a time run up to `VM creation > creating VM`)
//   (c) the ideal: 1 VM (pinned) - one install's time, engine costs included
//   (d) fully serial: 10 VMs pinned, --parallel 1
// --parallel 10 is explicit because the engine's default is 4 x CPUs (8 on a
// 2-core machine), which would run 10 installs in two waves.
//
// Run: `npm run build && node dist/bench/parallel-installs.js [--quick] [--reps N]`.
import { startSimulator, type SimulatorStats } from "../simulator";
import { QUICK, aim, warmUp, median, newStack, runMain, secs, spread } from "./common";

const VMS = 10;
/** simulated ms per wall ms: 178.22 s of simulated install -> ~2.5 s */
const SPEED = QUICK ? 180 : 70;
const REPS = repsArg(QUICK ? 1 : 3);
const PIN_FROM = 120;

function repsArg(fallback: number): number {
  const i = process.argv.indexOf("--reps");
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

type Case = "a" | "b" | "c" | "d";
const CASES: Record<Case, { label: string; count: number; pinned: boolean; parallel: number }> = {
  a: { label: "(a) 10 VMs, pinned VMIDs, --parallel 10", count: VMS, pinned: true, parallel: VMS },
  b: { label: "(b) 10 VMs, auto VMIDs, --parallel 10", count: VMS, pinned: false, parallel: VMS },
  c: { label: "(c) ideal: 1 VM (one install)", count: 1, pinned: true, parallel: VMS },
  d: { label: "(d) serial: 10 VMs, pinned, --parallel 1", count: VMS, pinned: true, parallel: 1 },
};

interface Run {
  ms: number;
  stats: SimulatorStats;
  vmids: number[];
}

async function run(c: Case): Promise<Run> {
  const spec = CASES[c];
  const sim = await startSimulator({ speed: SPEED, sshKey: true, imageCache: ["ubuntu/24.04"] });
  const s = await newStack("vms", {
    count: spec.count,
    "goPveQemu:endpoint": sim.url,
    ...(spec.pinned ? { pinFrom: PIN_FROM } : {}),
  });
  try {
    const { ms } = await s.up({ parallel: spec.parallel });
    return { ms, stats: { ...sim.stats() }, vmids: sim.vms().map((v) => v.vmid) };
  } finally {
    await s.dispose();
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `parallel installs: ${VMS} VMs, default step durations at speed ${SPEED} (one install ~${secs(178_220 / SPEED)} of simulated steps), ` +
      `image cached, SSH key present; fresh stack and simulator each run; ${REPS} interleaved repetition(s), medians${QUICK ? " (--quick)" : ""}`,
  );
  await warmUp();
  const runs: Record<Case, Run[]> = { a: [], b: [], c: [], d: [] };
  const order: Case[] = ["c", "a", "b", "d"];
  for (let r = 0; r < REPS; r++) {
    // Rotate the order each repetition, so no case always runs first or after the long serial one.
    const rotated = [...order.slice(r % order.length), ...order.slice(0, r % order.length)];
    for (const c of rotated) runs[c].push(await run(c));
    process.stderr.write(`parallel-installs: repetition ${r + 1}/${REPS} done\n`);
  }

  const t = (c: Case): number => median(runs[c].map((x) => x.ms));
  console.log("");
  for (const c of ["a", "b", "c", "d"] as const)
    console.log(`  ${CASES[c].label.padEnd(45)} ${spread(runs[c].map((x) => x.ms))}`);
  const a = t("a");
  const b = t("b");
  const c = t("c");
  const d = t("d");
  const position = (b - a) / (d - a);
  console.log("");
  console.log(`  a/c (pinned vs ideal):                 ${(a / c).toFixed(2)}`);
  console.log(`  b/c (auto vs ideal):                   ${(b / c).toFixed(2)}`);
  console.log(`  d/c (serial vs ideal):                 ${(d / c).toFixed(2)}`);
  console.log(`  (b-a)/(d-a) (0 = as parallel as pinned, 1 = serial): ${position.toFixed(3)}  (b-a = ${secs(b - a)})`);

  // Correctness of (b), in every repetition: no VMID collision, 10 distinct VMs, no failed install.
  const collisions = runs.b.reduce((n, x) => n + x.stats.vmidCollisions, 0);
  const failed = runs.b.reduce((n, x) => n + x.stats.installsFailed + x.stats.installsSilent, 0);
  const distinct = Math.min(...runs.b.map((x) => new Set(x.vmids).size));
  const ok = collisions === 0 && failed === 0 && distinct === VMS;
  console.log(
    `  (b) checks over ${runs.b.length} run(s): VMID collisions ${collisions}, failed installs ${failed}, ` +
      `distinct VMs per run ${distinct} of ${VMS} (VMIDs ${runs.b.map((x) => [...x.vmids].sort((p, q) => p - q).join(",")).join(" | ")}) ` +
      `${ok ? "OK" : "ASSERTION FAILED"}`,
  );
  console.log("");
  aim("parallel-pinned-vs-ideal", a / c, "<=", 1.2);
  aim("parallel-auto-position", position, "<=", 0.5);
  aim("parallel-auto-collisions", collisions, "==", 0, 0);
  aim("parallel-auto-distinct-vms", distinct, "==", VMS, 0);
  // Not slowness: a collision or a missing VM is a correctness failure.
  if (!ok) process.exitCode = 1;
}

runMain(main);
