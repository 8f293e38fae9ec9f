// Benchmark: one Ctrl-C during three installs, on each way in. `pulumi up` of
// three VMs through the real CLI (in its own process group, as a terminal
// runs it) against the simulator at a speed where an install takes tens of
// seconds; once the server holds all three VMs, SIGINT to pulumi's process
// group. Measured: the time from that Ctrl-C to pulumi's exit, the pending
// operations and the orphans (VMs on the server that no state holds) it
// leaves, what state records of each VM; then the next `up`, at once, and the
// time from the Ctrl-C until it has settled everything. The dynamic provider's
// provider never hears the engine's Cancel, so pulumi waits for every install
// in flight; the plugin's provider does, and ends its installs as
// "unconfirmed" for the next `up` to settle.
//
// Run: `npm run build && node dist/bench/ctrl-c.js [--quick]` (--quick: installs of ~18 s instead of ~36 s).
import { startSimulator, type SimulatorHandle } from "../simulator";
import { killGroup, newCliStack, waitFor, type CliStack } from "../scripts/cli-stack";
import { simulatedBounds } from "../scripts/sim-bounds";
import { WAYS_IN, QUICK, VM_TYPES, aim, runMain, type WayIn } from "./common";

/** The simulator's speed: an install with the default step durations (178 simulated s) takes 178/SPEED s. */
const SPEED = QUICK ? 10 : 5;
/** The aim: on the resource plugin, pulumi exits within this many seconds of one Ctrl-C. */
const AIM_PLUGIN_EXIT_S = 10;
const THREE = {
  a: { os: "ubuntu", version: "24.04", name: "a" },
  b: { os: "ubuntu", version: "24.04", name: "b", vmid: 171 },
  c: { os: "debian", version: "12", name: "c" },
};

interface WayInResult {
  exitS: number;
  exitCode: number | null;
  pending: number;
  orphansAfterCtrlC: number;
  /** each VM's installState in state after the Ctrl-C ("-" when it has none: a settled VM) */
  states: string[];
  nextUpS: number;
  nextUpOk: boolean;
  settledS: number;
  orphansAfter: number;
  vmsInState: number;
  /** installs the server began after the Ctrl-C (the next up must begin none) */
  installs: number;
  /** what the next up said while settling the VMs (its lines that follow or settle an install) */
  settling: string[];
}

async function exported(stack: CliStack, via: WayIn): Promise<string[]> {
  const r = await stack.run(["stack", "export"]);
  const resources =
    (JSON.parse(r.output) as { deployment: { resources?: { type: string; outputs?: Record<string, unknown> }[] } })
      .deployment.resources ?? [];
  return resources.filter((x) => x.type === VM_TYPES[via]).map((x) => String(x.outputs?.installState ?? "-"));
}

async function orphans(stack: CliStack, sim: SimulatorHandle): Promise<number> {
  const inState = new Set(await stack.vmidsInState());
  return sim.vms().filter((v) => !inState.has(v.vmid)).length;
}

async function once(via: WayIn): Promise<WayInResult> {
  // The reboot's stopped moment lasts as long as on the real server (1.5 s of wall time, not 1.5 s / SPEED):
  // the next up sees the install's one reboot and settles at its end, as it would there.
  const sim = await startSimulator({ speed: SPEED, durations: { rebootStopped: 1_500 * SPEED } });
  const stack = await newCliStack({
    name: `ctrl-c-${via}`,
    endpoint: sim.url,
    vms: THREE,
    via,
    config: { ...simulatedBounds(SPEED), "goPveQemu:pollIntervalMs": "250" },
  });
  try {
    const run = stack.start(["up", "--yes", "--skip-preview"]);
    if (!(await waitFor(() => sim.vms().length === 3 && sim.stats().installsStarted >= 3, 120_000)))
      throw new Error(
        `on the ${via} way in: the three installs never all began (${sim.vms().length} VMs, ${sim.stats().installsStarted} installs); pulumi said:\n${run.output().slice(-3000)}`,
      );
    const t0 = Date.now();
    // An install retried after the auto-VMID race counts twice: the next up must start none.
    const installsBefore = sim.stats().installsStarted;
    killGroup(run.child.pid!, "SIGINT");
    const end = await run.done;
    const exitS = (Date.now() - t0) / 1000;
    const pending = await stack.pendingOperations();
    const orphansAfterCtrlC = await orphans(stack, sim);
    const states = await exported(stack, via);
    const next = await stack.run(["up", "--yes", "--skip-preview"]);
    const settledS = (Date.now() - t0) / 1000;
    return {
      exitS,
      exitCode: end.code,
      pending,
      orphansAfterCtrlC,
      states,
      nextUpS: next.seconds,
      nextUpOk: next.code === 0,
      settledS,
      orphansAfter: await orphans(stack, sim),
      vmsInState: (await stack.vmidsInState()).length,
      installs: sim.stats().installsStarted - installsBefore,
      settling: next.output
        .split("\n")
        .filter((l) => /^\s*VM .*(settled as|still not settled)/.test(l))
        .map((l) => l.trim().slice(0, 240)),
    };
  } finally {
    await sim.close();
    stack.dispose();
  }
}

async function main(): Promise<void> {
  console.log(
    `ctrl-c: one Ctrl-C (SIGINT to pulumi's process group) once the server holds 3 VMs mid-install ` +
      `(simulator speed ${SPEED}: an install takes ~${Math.round(178 / SPEED)} s), on each way in; then the next up at once` +
      `${QUICK ? " (--quick)" : ""}`,
  );
  const r = {} as Record<WayIn, WayInResult>;
  // --via <via>: that way in alone (to look at one), without the side-by-side table.
  const only = process.argv.includes("--via") ? process.argv[process.argv.indexOf("--via") + 1] : undefined;
  if (only !== undefined) {
    if (!(WAYS_IN as readonly string[]).includes(only))
      throw new Error(`ctrl-c: --via ${only}: allowed ${WAYS_IN.join(", ")}`);
    console.log(JSON.stringify(await once(only as WayIn), null, 2));
    return;
  }
  for (const via of WAYS_IN) r[via] = await once(via);
  const row = (label: string, f: (d: WayInResult) => string): void =>
    console.log(`  ${label.padEnd(48)} ${f(r.dynamic).padEnd(24)} ${f(r.plugin)}`);
  console.log("");
  console.log(`  ${"".padEnd(48)} ${"dynamic provider".padEnd(24)} resource plugin`);
  row("Ctrl-C to pulumi's exit", (d) => `${d.exitS.toFixed(1)} s (exit ${d.exitCode})`);
  row("pending operations after", (d) => String(d.pending));
  row("orphans after", (d) => String(d.orphansAfterCtrlC));
  row("VMs in state, installState", (d) => `${d.states.length}: ${d.states.join(", ") || "none"}`);
  row("next up", (d) => `${d.nextUpS.toFixed(1)} s ${d.nextUpOk ? "ok" : "FAILED"}`);
  row("Ctrl-C to everything settled", (d) => `${d.settledS.toFixed(1)} s`);
  row("after it: VMs in state, orphans, new installs", (d) => `${d.vmsInState}, ${d.orphansAfter}, ${d.installs}`);
  for (const via of WAYS_IN) for (const l of r[via].settling) console.log(`  ${via} next up: ${l}`);
  console.log(`  Ctrl-C to exit, dynamic/plugin: ${(r.dynamic.exitS / r.plugin.exitS).toFixed(1)}x`);
  console.log("");
  aim("ctrl-c-plugin-exit-seconds", r.plugin.exitS, "<=", AIM_PLUGIN_EXIT_S, 1);
  for (const via of WAYS_IN) {
    const d = r[via];
    aim(`ctrl-c-${via}-orphans-and-pending`, d.orphansAfterCtrlC + d.orphansAfter + d.pending, "==", 0, 0);
    if (!d.nextUpOk || d.vmsInState !== 3 || d.installs !== 0)
      throw new Error(
        `on the ${via} way in: the next up ${d.nextUpOk ? "succeeded" : "failed"} with ${d.vmsInState} VMs in state and ${d.installs} installs begun after the Ctrl-C (expected 3 and 0)`,
      );
  }
}

runMain(main);
