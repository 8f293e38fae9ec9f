// The chaos campaign: K stacks (pipelines) on one simulator, driven through
// the real `pulumi` CLI for N rounds. Each round, drawn from a seeded PRNG:
// a change to each stack's program, fault rules of the simulator's catalogue,
// sometimes an interruption of a stack's `up` or a change on the server behind
// its back; then the faults are cleared, each stack recovers as the docs say,
// and the invariants are checked (chaos-check.ts). Replayable by seed: the
// draws are the same, the timing of a shared machine is not.
//
//   npm run chaos -- --seed S --rounds N [--stacks K] [--via dynamic|plugin|both] [--speed 100]
//     [--vms 4] [--bound 180]
import * as fs from "node:fs";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../simulator";
import { Rng } from "../simulator/random";
import { changeProgram, drawDrift, drawFaults, drawInterruption, type StackDraw } from "./chaos-draw";
import {
  adoptAdvised,
  checkDeclared,
  checkErrorsNameVm,
  checkOwnership,
  checkSecrets,
  type StateVm,
} from "./chaos-check";
import { Tally } from "./chaos-report";
import * as stacks from "./chaos-stack";
import { newCliStack, WAYS_IN, type WayIn } from "./cli-stack";
import { ROOT } from "./engine-env";
import { simulatedBounds } from "./sim-bounds";

interface Options {
  seed: number;
  rounds: number;
  stacks: number;
  via: WayIn | "both";
  speed: number;
  vms: number;
  bound: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { seed: 1, rounds: 3, stacks: 2, via: "dynamic", speed: 100, vms: 4, bound: 180 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, "") as keyof Options;
    const v = argv[i + 1] ?? "";
    if (key === "via" && (v === "both" || v in WAYS_IN)) o.via = v as Options["via"];
    else if (key in o && key !== "via" && Number.isInteger(Number(v))) (o[key] as number) = Number(v);
    else throw new Error(`chaos: bad argument ${argv[i]} ${v}`);
  }
  return o;
}

const replay = (o: Options, round: number) =>
  `npm run chaos -- --seed ${o.seed} --rounds ${round} --stacks ${o.stacks} --via ${o.via} --speed ${o.speed} --vms ${o.vms}`;

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const rng = new Rng(o.seed);
  const sim = await startSimulator({ speed: o.speed, seed: o.seed, measuredRates: true });
  const logRoot = path.join(ROOT, ".chaos", `seed-${o.seed}`);
  fs.rmSync(logRoot, { recursive: true, force: true });
  const tally = new Tally();
  let n = 0;
  const all: stacks.ChaosStack[] = [];
  console.log(`chaos: seed ${o.seed}, ${o.rounds} rounds, ${o.stacks} stacks via ${o.via}, speed ${o.speed}`);
  try {
    for (let k = 0; k < o.stacks; k++) all.push(await newStack(k, o, sim, rng));
    for (let round = 1; round <= o.rounds; round++) {
      const dir = path.join(logRoot, `round-${round}`);
      const violations = await runRound(round, o, rng, sim, all, tally, () => n++, dir);
      tally.round(violations.length);
      if (violations.length === 0) fs.rmSync(dir, { recursive: true, force: true });
      else {
        console.log(`VIOLATION seed ${o.seed} round ${round}: ${violations.length}`);
        for (const v of violations) console.log(`  ${v}`);
        console.log(`  logs: ${dir}\n  replay: ${replay(o, round)}`);
      }
    }
  } finally {
    for (const s of all) s.cli.dispose();
    await sim.close();
  }
  console.log(tally.report());
  console.log(
    `  recovery ups refused until a settle time, then run again: ${all.reduce((n, s) => n + s.refusedUntilSettled, 0)}`,
  );
  if (tally.violations > 0) process.exitCode = 1;
}

async function newStack(k: number, o: Options, sim: SimulatorHandle, rng: Rng): Promise<stacks.ChaosStack> {
  const via: WayIn = o.via === "both" ? (k % 2 === 0 ? "dynamic" : "plugin") : o.via;
  const cli = await newCliStack({
    name: `chaos${k}`,
    endpoint: sim.url,
    vms: {},
    via,
    config: {
      ...simulatedBounds(o.speed),
      "goPveQemu:pollIntervalMs": "250",
      // A stall or a black hole is noticed in seconds, not the real server's minutes.
      "goPveQemu:streamIdleTimeoutMs": "5000",
      "goPveQemu:streamHeadersTimeoutMs": "5000",
      "goPveQemu:settleWaitMs": "5000",
    },
  });
  const st: stacks.ChaosStack = {
    index: k,
    via,
    cli,
    program: {},
    secrets: [],
    names: new Set(),
    runs: [],
    refusedUntilSettled: 0,
  };
  await stacks.setToken(st, `tok${rng.below(2 ** 30).toString(36)}${rng.below(2 ** 30).toString(36)}`);
  return st;
}

async function runRound(
  round: number,
  o: Options,
  rng: Rng,
  sim: SimulatorHandle,
  all: stacks.ChaosStack[],
  tally: Tally,
  next: () => number,
  dir: string,
): Promise<string[]> {
  // Every draw of the round first, in a fixed order, so that timing never shifts a draw.
  const draws: StackDraw[] = all.map((st) => {
    const changed = changeProgram(rng, st.index, st.program, next, o.vms);
    const names = Object.keys(changed.program);
    const interruption = drawInterruption(rng);
    return { ...changed, interruption, drift: interruption ? undefined : drawDrift(rng, names) };
  });
  const faults = drawFaults(
    rng,
    draws.flatMap((d) => Object.keys(d.program)),
  );
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "draws.json"), JSON.stringify({ round, draws, faults }, null, 2));
  console.log(`round ${round}: ${JSON.stringify({ draws: draws.map(({ program: _p, ...d }) => d), faults })}`);
  for (const st of all) st.runs = [];
  for (const [i, st] of all.entries()) await stacks.writeProgram(st, draws[i]!.program, rng);
  for (const f of faults) sim.addFault(f);
  tally.faults(faults);
  const boundMs = o.bound * 1000;
  const ups = await Promise.all(all.map((st, i) => stacks.roundUp(st, draws[i]!, sim, boundMs)));
  sim.clearFaults();
  const drifted = await Promise.all(
    all.map(async (st, i) => {
      const d = draws[i]!.drift;
      return d ? stacks.drift(st, (await stacks.exportState(st)).state, d, sim) : undefined;
    }),
  );
  tally.interruptions(ups.map((u) => u.interrupted));
  tally.drifts(drifted);
  const recoveries = await Promise.all(
    all.map((st, i) =>
      stacks.recoverStack(st, { killed: ups[i]!.interrupted === "kill9", drifted: !!drifted[i], boundMs }),
    ),
  );
  const exempt = await Promise.all(all.map((st) => stacks.settleUnconfirmed(st, boundMs)));
  await sim.idle();
  const violations = await check(all, sim, recoveries, o, boundMs, tally);
  for (const [i, r] of recoveries.entries()) tally.recovery(r.seconds, exempt[i]!);
  for (const st of all)
    for (const [j, [label, out]] of st.runs.entries())
      fs.writeFileSync(path.join(dir, `${st.cli.name}-${j}-${label.replace(/\W+/g, "-")}.log`), out);
  fs.writeFileSync(path.join(dir, "server.json"), JSON.stringify(sim.state(), null, 2));
  return violations;
}

async function check(
  all: stacks.ChaosStack[],
  sim: SimulatorHandle,
  recoveries: { seconds: number; problems: string[] }[],
  o: Options,
  boundMs: number,
  tally: Tally,
): Promise<string[]> {
  const server = sim.vms();
  const states = new Map<string, StateVm[]>();
  const out: string[] = [];
  for (const [i, st] of all.entries()) {
    const preview = await stacks.previewNoChanges(st, boundMs);
    if (preview.code !== 0)
      out.push(`${st.cli.name}: preview --expect-no-changes: ${stacks.lastError(preview.output)}`);
    const exported = await stacks.exportState(st);
    states.set(st.cli.name, exported.state);
    out.push(...checkDeclared(st.cli.name, st.program, exported.state, server));
    if (exported.pending.length > 0)
      out.push(`${st.cli.name}: pending operations left: ${exported.pending.join(", ")}`);
    out.push(...recoveries[i]!.problems.map((p) => `${st.cli.name}: ${p}`));
    if (recoveries[i]!.seconds > o.bound)
      out.push(`${st.cli.name}: recovery took ${recoveries[i]!.seconds.toFixed(1)}s, over the bound ${o.bound}s`);
    const texts = Object.fromEntries([
      ...st.runs.map(([label, text], j) => [`${st.cli.name} run ${j} (${label})`, text]),
      [`${st.cli.name} state export`, exported.text],
    ]);
    const dirs = [st.cli.env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, ""), st.cli.env.GO_PVE_QEMU_JOURNAL_DIR!];
    out.push(...checkSecrets(st.secrets, texts, dirs));
    for (const [j, [label, text]] of st.runs.entries()) {
      const named = checkErrorsNameVm(`${st.cli.name} run ${j} (${label})`, text, [...st.names]);
      out.push(...named.violations);
      for (const id of named.known) tally.known(id);
    }
  }
  const advised = new Set(all.flatMap((st) => st.runs.flatMap(([, text]) => adoptAdvised(text))));
  const owned = checkOwnership(states, server, advised);
  out.push(...owned.violations);
  for (const vm of owned.leftToUser) {
    console.log(`  left for the user to adopt, as the error said: ${vm}`);
    tally.leftToUser();
  }
  return out;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
