// Soak run of the update path (not CI): N updates against the simulator in
// its measured-rates mode (migration streams corrupted at the rates measured
// on the real server), through the lifecycle with its clock in the
// simulator's time. On top of the measured rates, every --corrupt-every'th
// update has its streamed step (set/node, start or reboot) corrupted on
// purpose, cycling through the shapes the real server produces (broken chunk
// framing, a cut, frames after close, lost or reordered lines, a drop), and
// every --fail-every'th migration is refused by the server. After each
// update, once the server is idle, the recorded state is checked against the
// VM:
// - wrong: node, power state or cpu in state differ from the VM's;
// - lost:  a VM the update did not end with (no state, or the VM gone).
// Both must be 0. Outcomes: updated (success) or partial (PartialError, the
// failed step said; the next update carries on from its state).
//
// Run: `npm run build && node dist/bench/update-soak.js [--updates N] [--vms N] [--seed S]
// [--corrupt-every N] [--fail-every N]`.
import { GoPveQemuClient } from "../provider/client";
import { DEFAULT_TIMING, PartialError, create, update } from "../provider/lifecycle";
import type { LifecycleContext, VmInputs, VmState } from "../provider/lifecycle";
import { arg, simClock } from "./soak-support";
import { startSimulator } from "../simulator";
import type { FaultRule, SimulatorHandle } from "../simulator";
import { ProcessScope } from "../provider/lifecycle";

const SPEED = 1000;
const SHAPES: Array<Pick<FaultRule, "kind" | "variant" | "lines">> = [
  { kind: "garble", variant: "fragment" },
  { kind: "cut" },
  { kind: "late" },
  { kind: "lose", lines: 2 },
  { kind: "reorder" },
  { kind: "garble", variant: "duplicate" },
  { kind: "drop" },
];

/** The n-th update of a VM: a migration (with shutdown and start), a reboot, a cpu change, off, on. */
function nextInputs(n: number, name: string, vmid: number, state: VmState): VmInputs {
  const base = { os: "ubuntu", version: "24.04", name, vmid, node: state.node, cpu: state.cpu } as VmInputs;
  switch (n % 5) {
    case 0:
      return { ...base, node: state.node === "pve1" ? "pve2" : "pve1" };
    case 1:
      return { ...base, rebootTriggers: [`r${n}`] };
    case 2:
      return { ...base, cpu: state.cpu === 2 ? 3 : 2, rebootTriggers: state.inputs?.rebootTriggers };
    case 3:
      return { ...base, running: false, rebootTriggers: state.inputs?.rebootTriggers };
    default:
      return { ...base, rebootTriggers: state.inputs?.rebootTriggers };
  }
}

/** The streamed step the n-th update runs (the one to corrupt), if any. */
function streamedOp(n: number): FaultRule["op"] | undefined {
  return ["setNode", "reboot", "start", undefined, "start"][n % 5] as FaultRule["op"] | undefined;
}

function truthOf(sim: SimulatorHandle, state: VmState): "right" | "wrong" | "lost" {
  const vm = sim.vm(state.vmid);
  if (!vm) return "lost";
  const right = vm.node === state.node && (vm.status === "running") === state.running && vm.cpu === state.cpu;
  return right ? "right" : "wrong";
}

async function main(): Promise<void> {
  const updates = arg("--updates", 50);
  const vms = arg("--vms", 10);
  const corruptEvery = arg("--corrupt-every", 3);
  const failEvery = arg("--fail-every", 7);
  const sim = await startSimulator({
    speed: SPEED,
    sshKey: true,
    nodes: ["pve1", "pve2"],
    measuredRates: true,
    seed: arg("--seed", 1),
  });
  const client = new GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: 3_000 });
  const ctx = (): LifecycleContext => ({
    process: new ProcessScope(),
    reporter: { info: () => undefined, warn: () => undefined, debug: () => undefined },
    client: () => client,
    connectionDefaults: { endpoint: sim.url },
    timing: { ...DEFAULT_TIMING, pollIntervalMs: 5_000 },
    clock: simClock(SPEED),
  });
  const outcomes: Record<string, number> = {};
  const tally = { wrong: 0, lost: 0 };
  const started = performance.now();
  try {
    const fleet = await Promise.all(
      Array.from({ length: vms }, async (_, i) => {
        const inputs = { os: "ubuntu", version: "24.04", name: `u${i}`, vmid: 150 + i } as VmInputs;
        return { name: `u${i}`, vmid: 150 + i, state: (await create(inputs, ctx())).state, n: 0 };
      }),
    );
    for (let u = 0; u < updates; u++) {
      const vm = fleet[u % vms]!;
      const op = streamedOp(vm.n);
      if (op && u % corruptEvery === 0) {
        const shape = SHAPES[Math.floor(u / corruptEvery) % SHAPES.length]!;
        sim.addFault({ ...shape, op, vmid: vm.vmid, times: 1 } as FaultRule);
      } else if (op === "setNode" && u % failEvery === 0) {
        sim.addFault({ kind: "fail", op, vmid: vm.vmid, detail: "migration aborted", times: 1 });
      }
      const news = nextInputs(vm.n++, vm.name, vm.vmid, vm.state);
      let outcome: string;
      try {
        vm.state = await update(String(vm.vmid), vm.state, news, ctx());
        outcome = "updated";
      } catch (err) {
        if (!(err instanceof PartialError)) throw err;
        vm.state = err.state;
        outcome = "partial";
      }
      await sim.idle();
      sim.clearFaults();
      const truth = truthOf(sim, vm.state);
      if (truth !== "right") tally[truth]++;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    const stats = sim.stats() as unknown as Record<string, number>;
    console.log(`updates: ${updates} on ${vms} VMs, wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`streams corrupted by the simulator: ${stats.streamsCorrupted ?? "?"}`);
    console.log(`outcomes: ${JSON.stringify(outcomes)}`);
    console.log(`wrong: ${tally.wrong}, lost: ${tally.lost}`);
    if (tally.wrong + tally.lost > 0) process.exitCode = 1;
  } finally {
    await client.close();
    await sim.close();
  }
}

void main();
