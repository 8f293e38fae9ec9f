// Benchmark: a rollout under a downtime budget. 12 VMs of downtime group "web"
// (pinned VMIDs), then one `pulumi up --parallel 16` that changes every VM's
// cpu 2 -> 4: each update shuts its VM down, sets the cpu and starts it again,
// and the provider setting goPveQemu:downtimeBudgets {"web": b} lets at most b
// of them be down at once. Four cases, each on a fresh stack and a fresh
// simulator:
//   one  the yardstick: the same update of one VM (vm-0) in the same 12-VM
//        stack, so the engine has as many resources to read and diff
//   b1   12 VMs, budget 1 (12 waves)
//   b3   12 VMs, budget 3 (4 waves)
//   b12  12 VMs, budget 12 (1 wave: no VM waits)
// The VMs are created fast (speed 2000, not timed); the rollout runs at speed
// 20, where one VM's update (8 s guest shutdown, qm set, qm start, 35 s to
// SSH, 5 s finalize: ~50 simulated seconds) takes ~2.5 s of wall time, as in
// test/e2e/downtime.test.ts. The figure is the rollout's `up` alone.
//
// Correctness, from the simulator's power timeline of each rollout: the most
// VMs down at once (from the shutdown's start until SSH answers) must be
// min(b, 12), 1 for the yardstick; every VM must run afterwards with its new
// cpu. A violation fails the benchmark (exit code 1), whatever the times.
// Budget 12 can reach 12 only when the engine begins all 12 updates within one
// update's down time; the figures show how spread out the engine began them.
//
// Run: `npm run build && node dist/bench/rollout.js [--quick] [--reps N] [--parallel-diff]`.
// --parallel-diff, a diagnostic: the engine's experimental PULUMI_PARALLEL_DIFF, with which it diffs the
// resources at once instead of one after another (not what a user's `pulumi up` does by default).
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { mostDownAtOnce, startSimulator, type PowerChange, type SimulatorHandle } from "../simulator";
import { QUICK, aim, median, newStack, runMain, secs, spread, warmUp } from "./common";

const VMS = 12;
const PIN_FROM = 200;
const VMIDS = Array.from({ length: VMS }, (_, i) => PIN_FROM + i);
const GROUP = "web";
/** Installs are not what is measured: they run this fast (an install ~0.1 s of simulated steps). */
const CREATE_SPEED = 2000;
/** simulated ms per wall ms during the rollout: one VM's update ~50 simulated s -> ~2.5 s. */
const ROLLOUT_SPEED = 20;
/** Simulated ms of one VM's update: guest shutdown 8 s, qm shutdown, qm set, qm start, 35 s to SSH, 5 s finalize. */
const ONE_UPDATE_SIM_MS = 8_000 + 500 + 300 + 850 + 35_000 + 5_000;
const CPU_BEFORE = 2;
const CPU_AFTER = 4;
const REPS = repsArg(QUICK ? 1 : 3);
const PARALLEL_DIFF = process.argv.includes("--parallel-diff");

function repsArg(fallback: number): number {
  const i = process.argv.indexOf("--reps");
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

type Case = "one" | "b1" | "b3" | "b12";
const CASES: Record<Case, { label: string; budget: number; changed: number }> = {
  // The yardstick has a budget in force too, so it pays the same bookkeeping as the rollouts.
  one: { label: "one VM of 12 updated (budget 1)", budget: 1, changed: 1 },
  b1: { label: "12 VMs, budget 1", budget: 1, changed: VMS },
  b3: { label: "12 VMs, budget 3", budget: 3, changed: VMS },
  b12: { label: "12 VMs, budget 12", budget: 12, changed: VMS },
};
const ROLLOUTS: Case[] = ["b1", "b3", "b12"];

interface Run {
  /** wall ms of the rollout's `pulumi up` */
  ms: number;
  /** wall ms from the first VM's shutdown to the last SSH answer: the server's part of `ms` */
  spanMs: number;
  /** wall ms from the engine's first Vm update step to its last (how spread out the engine began them) */
  dispatchMs: number;
  /** the most VMs down at once, from the power timeline */
  mostDown: number;
  /** VMs that went down in the rollout */
  wentDown: number;
  /** what is wrong with the VMs afterwards (empty: nothing) */
  wrong: string[];
}

/** Wall ms from the first change of the rollout to its last `ready` (SSH answering again). */
function spanOf(changes: readonly PowerChange[]): number {
  if (changes.length === 0) return 0;
  const first = Math.min(...changes.map((c) => c.wallMs));
  const last = Math.max(...changes.filter((c) => c.status === "ready").map((c) => c.wallMs), first);
  return last - first;
}

/** Every VM exists, runs, and has the cpu this case gave it. */
function wrongVms(sim: SimulatorHandle, changed: number): string[] {
  const wrong: string[] = [];
  VMIDS.forEach((vmid, i) => {
    const vm = sim.vm(vmid);
    const cpu = i < changed ? CPU_AFTER : CPU_BEFORE;
    if (!vm) wrong.push(`${vmid} missing`);
    else if (vm.status !== "running" || vm.cpu !== cpu)
      wrong.push(`${vmid} ${vm.status} cpu ${vm.cpu} (want running cpu ${cpu})`);
  });
  return wrong;
}

async function run(c: Case): Promise<Run> {
  const spec = CASES[c];
  const sim = await startSimulator({ speed: CREATE_SPEED, sshKey: true, imageCache: ["ubuntu/24.04"] });
  const s = await newStack(
    "vms",
    {
      count: VMS,
      pinFrom: PIN_FROM,
      cpu: CPU_BEFORE,
      downtimeGroup: GROUP,
      "goPveQemu:endpoint": sim.url,
      "goPveQemu:downtimeBudgets": JSON.stringify({ [GROUP]: spec.budget }),
      // The provider looks at a shutting-down or starting VM this often: at its default a look would
      // be a large part of one update at this speed, and the figure would measure the look, not the waves.
      "goPveQemu:pollIntervalMs": 100,
    },
    PARALLEL_DIFF ? { PULUMI_PARALLEL_DIFF: "true" } : {},
  );
  try {
    // --parallel 16 for both ups: the engine's default (4 x CPUs, 8 here) would cap budget 12 at 8 VMs at once.
    await s.up({ parallel: 16 });
    await s.stack.setConfig(spec.changed === 1 ? "firstCpu" : "cpu", { value: String(CPU_AFTER) });
    sim.settings({ speed: ROLLOUT_SPEED });
    const from = sim.powerTimeline().length;
    // When the engine begins each Vm's update step: the budget cannot let VMs down together that the
    // engine has not handed to the provider yet.
    const began: number[] = [];
    const onEvent = (e: EngineEvent): void => {
      const m = e.resourcePreEvent?.metadata;
      if (m?.op === "update" && m.type.endsWith(":Vm")) began.push(performance.now());
    };
    const { ms } = await s.up({ parallel: 16, onEvent });
    const changes = sim.powerTimeline().slice(from);
    return {
      ms,
      spanMs: spanOf(changes),
      dispatchMs: began.length > 0 ? Math.max(...began) - Math.min(...began) : 0,
      mostDown: mostDownAtOnce(changes, VMIDS).most,
      wentDown: new Set(changes.filter((x) => x.status === "shutting-down").map((x) => x.vmid)).size,
      wrong: wrongVms(sim, spec.changed),
    };
  } finally {
    await s.dispose();
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `rollout: ${VMS} VMs of downtime group "${GROUP}", cpu ${CPU_BEFORE} -> ${CPU_AFTER} in one \`pulumi up --parallel 16\` ` +
      `at speed ${ROLLOUT_SPEED} (one VM's update ~${secs(ONE_UPDATE_SIM_MS / ROLLOUT_SPEED)} of simulated steps), ` +
      `budgets 1, 3, 12 beside one VM's update; fresh stack and simulator each run; ${REPS} interleaved repetition(s), medians${QUICK ? " (--quick)" : ""}${PARALLEL_DIFF ? ", PULUMI_PARALLEL_DIFF=true" : ""}`,
  );
  await warmUp();
  const runs: Record<Case, Run[]> = { one: [], b1: [], b3: [], b12: [] };
  const order: Case[] = ["one", "b12", "b3", "b1"];
  for (let r = 0; r < REPS; r++) {
    // Rotate the order each repetition, so no case always runs first or right after the long budget-1 one.
    const rotated = [...order.slice(r % order.length), ...order.slice(0, r % order.length)];
    for (const c of rotated) runs[c].push(await run(c));
    process.stderr.write(`rollout: repetition ${r + 1}/${REPS} done\n`);
  }

  const t = (c: Case): number => median(runs[c].map((x) => x.ms));
  const span = (c: Case): number => median(runs[c].map((x) => x.spanMs));
  const waves = (c: Case): number => Math.ceil(CASES[c].changed / CASES[c].budget);
  console.log("");
  console.log("  the rollout's `pulumi up`:");
  for (const c of ["one", ...ROLLOUTS] as const)
    console.log(`    ${CASES[c].label.padEnd(34)} ${spread(runs[c].map((x) => x.ms))}`);
  console.log("  the server's part (first shutdown to last SSH answer, from the power timeline):");
  for (const c of ["one", ...ROLLOUTS] as const)
    console.log(`    ${CASES[c].label.padEnd(34)} ${spread(runs[c].map((x) => x.spanMs))}`);
  console.log("  the engine's part (up minus the server's part; its fixed cost per up is what compresses the ratios):");
  for (const c of ["one", ...ROLLOUTS] as const)
    console.log(`    ${CASES[c].label.padEnd(34)} ${spread(runs[c].map((x) => x.ms - x.spanMs))}`);
  // The engine diffs one resource at a time, and begins each update after its diff: VMs can only be down
  // together if it begins their updates within one update's down time. When the provider's rollout plan
  // held each such diff 250 ms, the 12 began 2.9 s apart and budget 12 had only 9 down at once.
  console.log("  the engine's first to last Vm update step (how spread out the updates began):");
  for (const c of ROLLOUTS) console.log(`    ${CASES[c].label.padEnd(34)} ${spread(runs[c].map((x) => x.dispatchMs))}`);
  console.log("");
  console.log("  ratio to one VM's update   up     server's part   waves (ceil(12/budget))");
  for (const c of ROLLOUTS)
    console.log(
      `    budget ${String(CASES[c].budget).padEnd(18)} ${(t(c) / t("one")).toFixed(2).padEnd(6)} ${(span(c) / span("one")).toFixed(2).padEnd(15)} ${waves(c)}`,
    );

  // Correctness, in every repetition: the budget held and was used (never more down than it allows,
  // and as many as it allows: no waiting beyond it), each changed VM went down once, all run with their cpu.
  let ok = true;
  const worst: Record<Case, number> = { one: 0, b1: 0, b3: 0, b12: 0 };
  console.log("");
  for (const c of ["one", ...ROLLOUTS] as const) {
    const want = Math.min(CASES[c].budget, CASES[c].changed);
    const most = runs[c].map((x) => x.mostDown);
    const bad = runs[c].filter((x) => x.mostDown !== want || x.wentDown !== CASES[c].changed || x.wrong.length > 0);
    worst[c] = most.find((m) => m !== want) ?? want;
    if (bad.length > 0) ok = false;
    console.log(
      `  ${CASES[c].label} checks over ${runs[c].length} run(s): most down at once ${most.join(" ")} (want ${want}), ` +
        `VMs that went down ${runs[c].map((x) => x.wentDown).join(" ")} (want ${CASES[c].changed}), ` +
        `wrong VMs afterwards ${runs[c].flatMap((x) => x.wrong).join("; ") || "none"} ${bad.length === 0 ? "OK" : "ASSERTION FAILED"}`,
    );
    // Fewer down than the budget lets go: say whether the engine began the updates too far apart for
    // them to overlap (each VM is down about as long as the yardstick's one VM), so the cause is in the figures.
    const short = runs[c].filter((x) => x.mostDown < want);
    if (short.length > 0)
      console.log(
        `    fewer than ${want} down at once: the engine began the updates over ${short.map((x) => secs(x.dispatchMs)).join(", ")}, ` +
          `one VM is down ${secs(span("one"))}`,
      );
  }
  console.log("");
  // The shape: a rollout takes ceil(12/budget) waves of one update. The up's ratio is compressed by the
  // engine's fixed cost per up, which the yardstick pays too: with E that cost and U one update, it is
  // (E + waves x U) / (E + U), well under the waves (bench/README.md has the figures). The bounds sit
  // about a quarter above and below what that predicts; under the low one the yardstick got slow (or
  // waves overlapped, which the checks above catch first). Budget 12 is one wave: what it has over 1 is
  // the engine beginning 12 updates instead of one; 1.25 leaves room for noise but not for the 2.9 s
  // stagger that the plan's wait per diff once made (1.5).
  aim("rollout-budget12-vs-one", t("b12") / t("one"), "<=", 1.25);
  aim("rollout-budget3-vs-one-low", t("b3") / t("one"), ">=", 2);
  aim("rollout-budget3-vs-one-high", t("b3") / t("one"), "<=", 3);
  aim("rollout-budget1-vs-one-low", t("b1") / t("one"), ">=", 4.5);
  aim("rollout-budget1-vs-one-high", t("b1") / t("one"), "<=", 7.5);
  // The server's part has no engine cost in it, so there the ratio is the waves themselves; a wave may
  // cost a quarter more than one update: the place is held past SSH's answer until the start has
  // answered (the 5 s finalize, 0.25 s here), then handed on. More means a slow hand-over.
  aim("rollout-budget3-server-part-vs-one", span("b3") / span("one"), "<=", 1.25 * waves("b3"));
  aim("rollout-budget1-server-part-vs-one", span("b1") / span("one"), "<=", 1.25 * waves("b1"));
  for (const c of ["one", ...ROLLOUTS] as const)
    aim(
      `rollout-most-down-${c === "one" ? "one-vm" : `budget${CASES[c].budget}`}`,
      worst[c],
      "==",
      Math.min(CASES[c].budget, CASES[c].changed),
      0,
    );
  // Not slowness: more VMs down than the budget allows (or fewer than it lets go), or a VM left wrong, is a failure.
  if (!ok) process.exitCode = 1;
}

runMain(main);
