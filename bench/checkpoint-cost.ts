// Benchmark: what state bytes cost the engine's checkpoints. The file backend
// rewrites the whole snapshot at every step, so each byte a resource carries
// is written again at every later step: O(N) per step, O(N^2) per `up`.
// `pulumi up` of N no-op resources, bare and padded with as many bytes per
// resource as a Vm carries above the floor, each with the engine's
// checkpoints on and off (PULUMI_SKIP_CHECKPOINTS: only the final snapshot is
// written), and N Vms with checkpoints on and off. Differences of medians,
// every figure from the same interleaved run.
//
// Run: `npm run build && node dist/bench/checkpoint-cost.js [--quick] [--reps N] [--n N] [--pad BYTES]`.
import * as fs from "node:fs";
import { startSimulator } from "../simulator";
import { QUICK, cpuMs, median, msStr, newStack, runMain, spread, warmUp } from "./common";

const N = numArg("--n", QUICK ? 5 : 100);
const REPS = numArg("--reps", QUICK ? 1 : 3);
/** Bytes of padding string per no-op resource (stored twice: inputs and outputs). */
const PAD = numArg("--pad", 2500);
const SKIP = { PULUMI_SKIP_CHECKPOINTS: "true" };

function numArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

type Case = "noop" | "noop-pad" | "noop-skip" | "noop-pad-skip" | "vm" | "vm-skip";
const CASES: Case[] = ["noop", "noop-pad", "vm", "noop-skip", "noop-pad-skip", "vm-skip"];

interface Run {
  ms: number;
  /** CPU time of the up (common.ts cpuMs) */
  cpu: number;
  stateBytes: number;
}

async function run(c: Case): Promise<Run> {
  const env = c.endsWith("-skip") ? SKIP : {};
  const sim = c.startsWith("vm") ? await startSimulator({ durationsZero: true, sshKey: true }) : undefined;
  const s = sim
    ? await newStack("vms", { count: N, "goPveQemu:endpoint": sim.url }, env)
    : await newStack("noop", { count: N, ...(c.includes("pad") ? { pad: PAD } : {}) }, env);
  try {
    const cpu0 = cpuMs();
    const { ms } = await s.up();
    return { ms, cpu: cpuMs() - cpu0, stateBytes: fs.statSync(s.stateFile()).size };
  } finally {
    await s.dispose();
    await sim?.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `checkpoint cost: pulumi up of ${N} no-op resources (bare, and padded by ${PAD} bytes stored twice) and of ${N} Vms, ` +
      `with the engine's checkpoints on and off (PULUMI_SKIP_CHECKPOINTS); ${REPS} interleaved repetition(s), medians${QUICK ? " (--quick)" : ""}`,
  );
  await warmUp();
  const runs = Object.fromEntries(CASES.map((c) => [c, [] as Run[]])) as Record<Case, Run[]>;
  for (let r = 0; r < REPS; r++) {
    const order = [...CASES.slice(r % CASES.length), ...CASES.slice(0, r % CASES.length)];
    for (const c of order) runs[c].push(await run(c));
    process.stderr.write(`checkpoint-cost: repetition ${r + 1}/${REPS} done\n`);
  }
  const t = (c: Case): number => median(runs[c].map((x) => x.ms));
  const cpu = (c: Case): number => median(runs[c].map((x) => x.cpu));
  const bytes = (c: Case): number => median(runs[c].map((x) => x.stateBytes));
  console.log("");
  for (const c of CASES)
    console.log(
      `  ${c.padEnd(14)} ${spread(runs[c].map((x) => x.ms)).padEnd(34)} CPU ${msStr(cpu(c)).padStart(8)}  state file ${bytes(c)} bytes`,
    );
  const perRes = (a: Case, b: Case): string => `${((bytes(a) - bytes(b)) / N).toFixed(0)} bytes per resource`;
  const padCost = t("noop-pad") - t("noop");
  const padCostSkip = t("noop-pad-skip") - t("noop-skip");
  const checkpointsNoop = t("noop") - t("noop-skip");
  const checkpointsVm = t("vm") - t("vm-skip");
  console.log("");
  console.log(
    `  the padding (${perRes("noop-pad", "noop")}) costs ${msStr(padCost)} with checkpoints, ${msStr(padCostSkip)} without`,
  );
  console.log(
    `  checkpoints cost: no-op ${msStr(checkpointsNoop)} (${((100 * checkpointsNoop) / t("noop")).toFixed(0)}% of its up), ` +
      `Vm ${msStr(checkpointsVm)} (${((100 * checkpointsVm) / t("vm")).toFixed(0)}% of its up)`,
  );
  const cpuPad = cpu("noop-pad") - cpu("noop");
  const cpuPadSkip = cpu("noop-pad-skip") - cpu("noop-skip");
  console.log(
    `  in CPU time: the padding costs ${msStr(cpuPad)} with checkpoints, ${msStr(cpuPadSkip)} without; ` +
      `checkpoints cost no-op ${msStr(cpu("noop") - cpu("noop-skip"))}, Vm ${msStr(cpu("vm") - cpu("vm-skip"))}`,
  );
  const kb = (bytes("noop-pad") - bytes("noop")) / N / 1024;
  console.log(
    `  so one KB of state per resource costs ${msStr((padCost - padCostSkip) / kb)} of checkpoints in an up of ${N} ` +
      `(${((padCost - padCostSkip) / kb / N).toFixed(2)} ms per resource), and Vm/no-op with checkpoints off ${(t("vm-skip") / t("noop-skip")).toFixed(2)}, on ${(t("vm") / t("noop")).toFixed(2)}`,
  );
}

runMain(main);
