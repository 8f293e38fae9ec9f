// Benchmark: what a Vm costs the engine per resource. On a fresh stack of N
// Vms against the simulator with every step duration at zero (an install
// answers at once): `pulumi up`, then `pulumi refresh`, then `pulumi preview`
// of the stack as it stands. Beside it, the same three on N no-op dynamic
// resources (their provider's create returns at once, and they have no read
// or diff: the engine's own floor), and on N no-op resources that carry the
// state of a real Vm (bench/programs/shaped: its inputs, outputs and secret
// outputs, captured once from an `up` of one VM). That third column splits a
// Vm's cost into what the engine charges for the state it holds (shaped vs
// floor) and what the provider's own work adds (Vm vs shaped). Same engine,
// same kind of backend, a fresh stack (and a fresh simulator) for every run.
// A fourth column runs the same Vms through the resource plugin (the plugin
// way in): beside the floor, the shaped resources and the dynamic provider's Vm.
// With --baseline DIR, two more columns run the same Vms on both ways in through
// another checkout's build (an earlier commit, set up and built), interleaved
// with the rest, so that "no worse than before" is measured side by side in one
// run rather than across two runs on a noisy machine.
//
// Run: `npm run build && node dist/bench/engine-overhead.js [--quick] [--reps N] [--ns 10,100]
//       [--profile DIR] [--baseline DIR]` (--profile: CPU profiles of every Node.js process the
//       engine starts, through NODE_OPTIONS and profile-hook.ts, in DIR/<floor|vm>-n<N>/; summarise
//       one folder with dist/bench/profile-top.js DIR/vm-n100).
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { startSimulator } from "../simulator";
import {
  QUICK,
  aim,
  cleanWork,
  cpuMs,
  warmUp,
  median,
  msStr,
  newStack,
  runMain,
  spread,
  vmStateTemplate,
  vmsConfig,
} from "./common";
import type { VmStateTemplate } from "./common";
import { baselineArg, printBaselineFigures, type Figure } from "./baseline";

const NS = listArg("--ns") ?? (QUICK ? [2, 5] : [10, 25, 50, 100]);
const REPS = repsArg(QUICK ? 1 : 5);
const PROFILE = stringArg("--profile");
const OPS = ["up", "refresh", "preview"] as const;
type Op = (typeof OPS)[number];
const BASELINE = baselineArg(stringArg("--baseline"));
/** The baseline's Vms on each way in: `vm-base` (dynamic provider), `plugin-base` (resource plugin). */
type Kind = "floor" | "shaped" | "vm" | "plugin" | "vm-base" | "plugin-base";
const KINDS: readonly Kind[] = [
  "floor",
  "shaped",
  "vm",
  "plugin",
  ...(BASELINE ? (["vm-base", "plugin-base"] as const) : []),
];
const VM_KINDS: ReadonlySet<Kind> = new Set(["vm", "plugin", "vm-base", "plugin-base"]);
const PLUGIN_KINDS: ReadonlySet<Kind> = new Set(["plugin", "plugin-base"]);
/** The aim: each operation on N Vms within this factor of the same operation on N no-op resources. */
const AIM_RATIO = 1.2;
/** The aim: `up`'s cost per VM of the last segment within this factor of the first segment's. */
const AIM_FLAT = 1.5;
/** The aim: server requests per VM of a `refresh` at the largest N. */
const AIM_REFRESH_REQUESTS = 1.2;
/** The aim: the provider's own share of `up` and `refresh` at the largest N, Vm/shaped (paired). */
const AIM_PROVIDER_SHARE = 1.05;
const SHARE_OPS: readonly Op[] = ["up", "refresh"];
/** How far the shaped resources' state may be from the Vms' (a fraction) for Vm/shaped to mean the provider's share. */
const SHAPED_STATE_TOLERANCE = 0.03;

function repsArg(fallback: number): number {
  const v = Number(stringArg("--reps"));
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function listArg(name: string): number[] | undefined {
  const v = stringArg(name);
  if (v === undefined) return undefined;
  const ns = v.split(",").map(Number);
  return ns.every((n) => Number.isInteger(n) && n > 0) ? ns : undefined;
}

interface OpRun {
  ms: number;
  /** CPU time of the operation: every process of it, and the simulator (common.ts cpuMs) */
  cpu: number;
  /** engine events of the operation, and how many of them are diagnostics (log lines) */
  events: number;
  diagnostics: number;
  /** diagnostics by severity (info, debug, warning, ...) */
  bySeverity: Record<string, number>;
  /** simulator requests the operation made, by endpoint (Vm runs only) */
  requests: Record<string, number>;
}

interface Run {
  ops: Record<Op, OpRun>;
  /** the state file after `up` */
  stateBytes: number;
}

function counter(): {
  onEvent: (e: EngineEvent) => void;
  events: number;
  diagnostics: number;
  bySeverity: Record<string, number>;
} {
  const c = {
    events: 0,
    diagnostics: 0,
    bySeverity: {} as Record<string, number>,
    onEvent: (e: EngineEvent) => {
      c.events++;
      if (e.diagnosticEvent) {
        c.diagnostics++;
        const sev = e.diagnosticEvent.severity;
        c.bySeverity[sev] = (c.bySeverity[sev] ?? 0) + 1;
      }
    },
  };
  return c;
}

/** What changed between two request counters, without the simulator's admin calls. */
function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    if (k === "admin") continue;
    const d = v - (before[k] ?? 0);
    if (d > 0) out[k] = d;
  }
  return out;
}

async function run(kind: Kind, n: number, template: VmStateTemplate): Promise<Run> {
  const sim = VM_KINDS.has(kind) ? await startSimulator({ durationsZero: true, sshKey: true }) : undefined;
  const env: Record<string, string> = kind === "shaped" ? { BENCH_VM_STATE: JSON.stringify(template) } : {};
  if (PROFILE) {
    env.NODE_OPTIONS = `--require ${path.join(__dirname, "profile-hook.js")}`;
    env.GPQ_PROFILE_DIR = path.resolve(PROFILE, `${kind}-n${n}`);
  }
  const checkout = kind.endsWith("-base") ? BASELINE?.dir : undefined;
  const s = sim
    ? await newStack(
        "vms",
        vmsConfig(PLUGIN_KINDS.has(kind) ? "plugin" : "dynamic", sim.url, { count: n }),
        env,
        checkout,
      )
    : await newStack(kind === "shaped" ? "shaped" : "noop", { count: n }, env);
  try {
    const requests = (): Record<string, number> => ({ ...(sim?.stats().requests ?? {}) });
    const once = async (op: Op): Promise<OpRun> => {
      const c = counter();
      const before = requests();
      const cpu0 = cpuMs();
      const { ms, result } = await s[op]({ onEvent: c.onEvent });
      const cpu = cpuMs() - cpu0;
      if (op === "preview") {
        const changes = Object.entries((result as { changeSummary?: Record<string, number> }).changeSummary ?? {});
        const planned = changes.filter(([k, v]) => k !== "same" && v > 0);
        if (planned.length > 0)
          throw new Error(`preview of an up-to-date stack planned changes: ${JSON.stringify(planned)}`);
      }
      if (sim && sim.vms().length !== n)
        throw new Error(`after ${op}: expected ${n} VMs on the simulator, found ${sim.vms().length}`);
      return {
        ms,
        cpu,
        events: c.events,
        diagnostics: c.diagnostics,
        bySeverity: c.bySeverity,
        requests: delta(before, requests()),
      };
    };
    const up = await once("up");
    const stateBytes = fs.statSync(s.stateFile()).size;
    const refresh = await once("refresh");
    const preview = await once("preview");
    return { ops: { up, refresh, preview }, stateBytes };
  } finally {
    await s.dispose();
    await sim?.close();
  }
}

const total = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** One Vm's state from an `up` of one VM on a simulator of its own, for the shaped runs. */
async function captureTemplate(): Promise<VmStateTemplate> {
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  try {
    return await vmStateTemplate(sim.url);
  } finally {
    await sim.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `engine overhead: on a fresh stack of N Vms (simulator, every step 0 ms, auto VMIDs, default --parallel): ` +
      `up, then refresh, then preview; vs the same on N no-op dynamic resources (floor) and on N no-op resources carrying a Vm's state (shaped); ` +
      `${REPS} interleaved repetition(s), medians` +
      `${QUICK ? " (--quick)" : ""}${PROFILE ? `; CPU profiles in ${PROFILE}` : ""}` +
      `${BASELINE ? `; beside a baseline: ${BASELINE.dir} (${BASELINE.commit})` : ""}`,
  );
  if (BASELINE) cleanWork(BASELINE.dir);
  await warmUp(BASELINE?.dir);
  const template = await captureTemplate();
  const runs = Object.fromEntries(KINDS.map((kind) => [kind, new Map(NS.map((n) => [n, [] as Run[]]))])) as Record<
    Kind,
    Map<number, Run[]>
  >;
  for (let r = 0; r < REPS; r++) {
    for (const n of NS) {
      // The order rotates with each repetition: drift on a shared machine hits every kind alike.
      const k = (r + NS.indexOf(n)) % KINDS.length;
      const order = [...KINDS.slice(k), ...KINDS.slice(0, k)];
      for (const kind of order) runs[kind].get(n)!.push(await run(kind, n, template));
    }
    process.stderr.write(`engine-overhead: repetition ${r + 1}/${REPS} done\n`);
  }

  const ms = (kind: Kind, op: Op, n: number): number[] => runs[kind].get(n)!.map((x) => x.ops[op].ms);
  const t = (kind: Kind, op: Op, n: number): number => median(ms(kind, op, n));
  const cpu = (kind: Kind, op: Op, n: number): number => median(runs[kind].get(n)!.map((x) => x.ops[op].cpu));
  /**
   * The ratio of each repetition's `of` run to the `to` run beside it (same
   * moment, same load), and their median: drift between repetitions cancels.
   */
  const pairedOf = (of: Kind, to: Kind, op: Op, n: number): number => {
    const f = ms(to, op, n);
    return median(ms(of, op, n).map((v, i) => v / f[i]!));
  };
  const paired = (op: Op, n: number): number => pairedOf("vm", "floor", op, n);
  const slope = (kind: Kind, op: Op, a: number, b: number): number => (t(kind, op, b) - t(kind, op, a)) / (b - a);
  const segs = NS.slice(1).map((n, i) => [NS[i]!, n] as const);
  /**
   * The resource plugin's Vms beside the floor, the shaped resources and the dynamic
   * provider's Vms, paired. The shaped resources carry the dynamic Vm's state, which
   * holds the serialized provider a plugin Vm has not (`state-size`): that
   * baseline pays for more state than a plugin Vm holds, so plugin/shaped
   * understates the plugin provider's own share (a lower bound of it).
   */
  const printPlugin = (op: Op): void => {
    console.log(
      `    ${"N".padStart(3)}  ${"resource plugin Vm (median [runs])".padEnd(34)}  ${"plugin/floor".padStart(12)}  ` +
        `${"plugin/shaped".padStart(13)}  ${"plugin/Vm".padStart(9)}  ${"CPU plugin".padStart(10)}  CPU plugin/Vm`,
    );
    for (const n of NS) {
      console.log(
        `    ${String(n).padStart(3)}  ${spread(ms("plugin", op, n)).padEnd(34)}  ` +
          `${pairedOf("plugin", "floor", op, n).toFixed(2).padStart(12)}  ${pairedOf("plugin", "shaped", op, n).toFixed(2).padStart(13)}  ` +
          `${pairedOf("plugin", "vm", op, n).toFixed(2).padStart(9)}  ${(cpu("plugin", op, n) / 1000).toFixed(2).padStart(8)} s  ` +
          `${(cpu("plugin", op, n) / cpu("vm", op, n)).toFixed(2).padStart(13)}`,
      );
    }
  };
  /**
   * This checkout's Vms beside the baseline's, on each way in, paired: the
   * direct answer to "is it slower than before", the rest of the run's noise
   * cancelled repetition by repetition.
   */
  const printBaseline = (op: Op): void => {
    console.log(
      `    ${"N".padStart(3)}  ${"baseline Vm (median [runs])".padEnd(34)}  ${"Vm/base".padStart(7)}  ${"CPU".padStart(5)}  ` +
        `${"baseline plugin Vm (median [runs])".padEnd(34)}  ${"plugin/base".padStart(11)}  ${"CPU".padStart(5)}`,
    );
    for (const n of NS) {
      console.log(
        `    ${String(n).padStart(3)}  ${spread(ms("vm-base", op, n)).padEnd(34)}  ` +
          `${pairedOf("vm", "vm-base", op, n).toFixed(2).padStart(7)}  ${(cpu("vm", op, n) / cpu("vm-base", op, n)).toFixed(2).padStart(5)}  ` +
          `${spread(ms("plugin-base", op, n)).padEnd(34)}  ` +
          `${pairedOf("plugin", "plugin-base", op, n).toFixed(2).padStart(11)}  ${(cpu("plugin", op, n) / cpu("plugin-base", op, n)).toFixed(2).padStart(5)}`,
      );
    }
  };
  const lo = NS[0]!;
  const hi = NS[NS.length - 1]!;

  for (const op of OPS) {
    console.log("");
    console.log(`  pulumi ${op}`);
    console.log(
      `    ${"N".padStart(3)}  ${"no-op floor (median [runs])".padEnd(34)}  ${"Vm (median [runs])".padEnd(34)}  ` +
        `Vm/floor  paired  CPU floor  CPU Vm  CPU Vm/floor`,
    );
    for (const n of NS) {
      console.log(
        `    ${String(n).padStart(3)}  ${spread(ms("floor", op, n)).padEnd(34)}  ${spread(ms("vm", op, n)).padEnd(34)}  ` +
          `${(t("vm", op, n) / t("floor", op, n)).toFixed(2).padStart(8)}  ${paired(op, n).toFixed(2).padStart(6)}  ` +
          `${(cpu("floor", op, n) / 1000).toFixed(2).padStart(7)} s  ${(cpu("vm", op, n) / 1000).toFixed(2).padStart(4)} s  ` +
          `${(cpu("vm", op, n) / cpu("floor", op, n)).toFixed(2).padStart(12)}`,
      );
    }
    // The same operation on no-op resources that hold a Vm's state: the gap's two parts, paired.
    console.log(
      `    ${"N".padStart(3)}  ${"shaped: a Vm's state (median [runs])".padEnd(34)}  ${"shaped/floor".padStart(12)}  ` +
        `${"Vm/shaped".padStart(9)}  ${"CPU shaped".padStart(10)}  of the Vm's extra time, the state's share`,
    );
    for (const n of NS) {
      // Under 5% of the floor, the Vm's extra time is about the noise: a share of it means nothing.
      const extra = t("vm", op, n) - t("floor", op, n);
      const share = extra >= 0.05 * t("floor", op, n) ? (t("shaped", op, n) - t("floor", op, n)) / extra : NaN;
      console.log(
        `    ${String(n).padStart(3)}  ${spread(ms("shaped", op, n)).padEnd(34)}  ` +
          `${pairedOf("shaped", "floor", op, n).toFixed(2).padStart(12)}  ${pairedOf("vm", "shaped", op, n).toFixed(2).padStart(9)}  ` +
          `${(cpu("shaped", op, n) / 1000).toFixed(2).padStart(8)} s  ${Number.isFinite(share) ? `${(share * 100).toFixed(0)}%` : "-"}`,
      );
    }
    printPlugin(op);
    if (BASELINE) printBaseline(op);
    // Linear growth: the slope of each segment is about the same.
    const show = (kind: Kind): string => segs.map(([a, b]) => `${a}->${b} ${msStr(slope(kind, op, a, b))}`).join(", ");
    if (segs.length > 0) {
      console.log(`    marginal cost per resource by segment: floor ${show("floor")}; Vm ${show("vm")}`);
      const f = slope("floor", op, lo, hi);
      const v = slope("vm", op, lo, hi);
      console.log(
        `    marginal cost per resource ${lo}->${hi}: floor ${msStr(f)}, Vm ${msStr(v)}, Vm - floor ${msStr(v - f)}`,
      );
    }
    // What one more resource adds to the operation: engine events (mostly log lines) and server requests.
    const per = (kind: Kind, key: "events" | "diagnostics"): string =>
      segs.length > 0
        ? (
            (median(runs[kind].get(hi)!.map((x) => x.ops[op][key])) -
              median(runs[kind].get(lo)!.map((x) => x.ops[op][key]))) /
            (hi - lo)
          ).toFixed(1)
        : "-";
    const reqs = runs.vm.get(hi)!.map((x) => x.ops[op].requests);
    const req = reqs[reqs.length - 1]!;
    console.log(
      `    per resource: engine events floor ${per("floor", "events")}, Vm ${per("vm", "events")} ` +
        `(diagnostics floor ${per("floor", "diagnostics")}, Vm ${per("vm", "diagnostics")}); ` +
        `server requests per Vm at N=${hi}: ${(median(reqs.map(total)) / hi).toFixed(2)}` +
        ` (${
          Object.entries(req)
            .map(([k, v]) => `${k} ${(v / hi).toFixed(2)}`)
            .join(", ") || "none"
        })`,
    );
    // Log messages (each one a Log RPC and an engine event) per resource at the largest N, by severity.
    const sev = (kind: Kind): string => {
      const last = runs[kind].get(hi)!;
      const b = last[last.length - 1]!.ops[op].bySeverity;
      return (
        Object.entries(b)
          .map(([k, v]) => `${k} ${(v / hi).toFixed(2)}`)
          .join(", ") || "none"
      );
    };
    console.log(`    diagnostics per resource at N=${hi}, by severity: floor ${sev("floor")}; Vm ${sev("vm")}`);
  }

  const bytes = (kind: Kind, n: number): number => median(runs[kind].get(n)!.map((x) => x.stateBytes));
  console.log("");
  const bytesPerResource = (kind: Kind): number => (bytes(kind, hi) - bytes(kind, lo)) / (hi - lo);
  const perResource = (kind: Kind): string => (hi > lo ? bytesPerResource(kind).toFixed(0) : "-");
  // Per resource where two sizes give it (the stack's own resources weigh on a small state file), else the whole file.
  const fidelity =
    hi > lo ? bytesPerResource("shaped") / bytesPerResource("vm") : bytes("shaped", hi) / bytes("vm", hi);
  console.log(
    `  state bytes per resource (state file after up, ${lo}->${hi}): floor ${perResource("floor")}, ` +
      `shaped ${perResource("shaped")}, Vm ${perResource("vm")}, resource plugin Vm ${perResource("plugin")}; ` +
      `state file at N=${hi}: floor ${bytes("floor", hi)}, shaped ${bytes("shaped", hi)}, Vm ${bytes("vm", hi)}, ` +
      `plugin ${bytes("plugin", hi)}; shaped/Vm ${fidelity.toFixed(3)}`,
  );
  console.log("");
  // The ratio aims take the paired ratio (see `paired`); the tables show the ratio of medians too.
  const figures = (vm: Kind, plugin: Kind): Figure[] => {
    const out: Figure[] = [];
    const add = (name: string, value: number, bound: number): void => {
      out.push({ name, value, bound });
    };
    for (const op of OPS)
      for (const n of NS) add(`engine-overhead-${op}-n${n}`, pairedOf(vm, "floor", op, n), AIM_RATIO);
    if (segs.length >= 2) {
      const [a, b] = segs[0]!;
      const [c, d] = segs[segs.length - 1]!;
      add(`engine-overhead-up-flat-${c}-${d}-vs-${a}-${b}`, slope(vm, "up", c, d) / slope(vm, "up", a, b), AIM_FLAT);
    }
    // What the provider's own work adds to the engine's cost of a Vm's state: the shaped runs carry that state.
    for (const op of SHARE_OPS)
      add(`engine-overhead-${op}-provider-share-n${hi}`, pairedOf(vm, "shaped", op, hi), AIM_PROVIDER_SHARE);
    // The same aims for the resource plugin, side by side (its share against the same shaped resources, see printPlugin).
    for (const op of OPS)
      for (const n of NS) add(`engine-overhead-plugin-${op}-n${n}`, pairedOf(plugin, "floor", op, n), AIM_RATIO);
    for (const op of SHARE_OPS)
      add(`engine-overhead-plugin-${op}-provider-share-n${hi}`, pairedOf(plugin, "shaped", op, hi), AIM_PROVIDER_SHARE);
    const refreshReqs = median(runs[vm].get(hi)!.map((x) => total(x.ops.refresh.requests))) / hi;
    add(`engine-overhead-refresh-requests-per-vm-n${hi}`, refreshReqs, AIM_REFRESH_REQUESTS);
    return out;
  };
  const mine = figures("vm", "plugin");
  for (const f of mine) aim(f.name, f.value, "<=", f.bound);
  if (BASELINE) printBaselineFigures(BASELINE.commit, mine, figures("vm-base", "plugin-base"));
  // Vm/shaped is the provider's own share only while the shaped resources hold what a Vm holds:
  // a Vm that comes to store more (a new input, a new dependency) would count as the provider's work.
  if (Math.abs(fidelity - 1) > SHAPED_STATE_TOLERANCE)
    throw new Error(
      `the shaped resources no longer hold a Vm's state: their state is ${fidelity.toFixed(3)} ` +
        `of the Vms' (per resource, or the state file at N=${hi} when only one N ran; allowed 1 +/- ${SHAPED_STATE_TOLERANCE}); bench/programs/shaped must declare what a Vm stores`,
    );
}

runMain(main);
