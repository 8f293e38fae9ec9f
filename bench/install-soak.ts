// Soak run of the create path (not CI): N installs against the simulator in
// its measured-rates mode (stream corruption at the rates measured on the
// real server: 4 of 30 chatty installs lose their stream), through the
// lifecycle with its clock in the simulator's time, then each outcome is
// checked against the server once it is idle:
// - wrong:  recorded as installed, but the VM is not running on the server;
// - ghost:  in state (success or partial), but not on the server;
// - orphan: on the server, but in no state.
// Every 5th install's init script fails (--fail-every N), and the server
// removes its VM: those must end in a clear error. All three must be 0. Half the installs pin a VMID (from 150: the server probes for free
// VMIDs from both ends of its range), half let the server pick.
//
// Run: `npm run build && node dist/bench/install-soak.js [--installs N] [--seed S] [--fail-every N] [--speed N]`.
import { GoPveQemuClient } from "../provider/client";
import { DEFAULT_TIMING, PartialError, create } from "../provider/lifecycle";
import type { VmState } from "../provider/lifecycle";
import { arg, simClock } from "./soak-support";
import { startSimulator } from "../simulator";
import { ProcessScope } from "../provider/lifecycle";

/** The simulator's speed (--speed): at 1000 a 1.5 s stop is 1.5 ms; at 10 the reboot watch works at human scale. */
const SPEED = arg("--speed", 1000);
/** The client's stream idle timeout: its default 15 min in the server's time, at least 3 s of real time. */
const IDLE_MS = Math.max(3_000, 900_000 / SPEED);

async function main(): Promise<void> {
  const installs = arg("--installs", 50);
  const failEvery = arg("--fail-every", 5);
  const sim = await startSimulator({ speed: SPEED, sshKey: true, measuredRates: true, seed: arg("--seed", 1) });
  // Every failEvery-th install's init script fails: the server removes the VM (its clean-up),
  // whether or not anyone still listens: the ghost case.
  for (let i = 0; i < installs; i += failEvery) {
    sim.addFault({ kind: "fail", op: "install", step: "SSH initialization", name: `soak${i}` });
  }
  const client = new GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: IDLE_MS });
  const outcomes: Record<string, number> = {};
  const states: Array<{ state: VmState; installed: boolean }> = [];
  const started = performance.now();
  try {
    const runs = Array.from({ length: installs }, async (_, i) => {
      const inputs = {
        os: "ubuntu",
        version: "24.04",
        name: `soak${i}`,
        ...(i % 2 ? { vmid: 150 + (i >> 1) } : {}),
      } as never;
      const ctx = {
        process: new ProcessScope(),
        reporter: { info: () => undefined, warn: () => undefined, debug: () => undefined },
        client: () => client,
        connectionDefaults: { endpoint: sim.url },
        timing: { ...DEFAULT_TIMING, pollIntervalMs: 5_000 },
        clock: simClock(SPEED),
      };
      try {
        states.push({ state: (await create(inputs, ctx)).state, installed: true });
        return "installed";
      } catch (err) {
        if (err instanceof PartialError) {
          states.push({ state: err.state, installed: false });
          return err.state.installState === "unconfirmed" ? "unconfirmed" : "partial";
        }
        return `error ${(err as { code?: string }).code ?? "?"}`;
      }
    });
    for (const o of await Promise.all(runs)) outcomes[o] = (outcomes[o] ?? 0) + 1;
    await sim.idle();
    const onServer = new Map(sim.vms().map((vm) => [vm.vmid, vm]));
    const known = new Set(states.map((s) => s.state.vmid));
    const wrong = states.filter((s) => s.installed && onServer.get(s.state.vmid)?.status !== "running").length;
    const ghosts = states.filter((s) => !onServer.has(s.state.vmid)).length;
    const orphans = [...onServer.keys()].filter((vmid) => !known.has(vmid)).length;
    const stats = sim.stats() as unknown as Record<string, number>;
    console.log(`installs: ${installs}, wall time ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`streams corrupted by the simulator: ${stats.streamsCorrupted ?? "?"}`);
    console.log(`outcomes: ${JSON.stringify(outcomes)}`);
    console.log(`wrong: ${wrong}, ghosts: ${ghosts}, orphans: ${orphans}`);
    if (wrong + ghosts + orphans > 0) process.exitCode = 1;
  } finally {
    await client.close();
    await sim.close();
  }
}

void main();
