// Several pipelines at once on one server, through the real engine: three
// stacks, each of four VMs without a pinned VMID, `up` in all at the same
// time, then `destroy` in all. Each stack lets one of its auto installs at a
// time run up to `creating VM`, but the stacks know nothing of each other: the
// server's pick races between them (the auto-assigned VMID race), and the
// loser is retried once. That retry must start clean: no failed deployment,
// no VM outside every state, no VMID in two states.
//
// The race is made certain, not left to timing: until the first VM exists,
// every install is held in the gap between the pick and `creating VM`, and
// the simulator picks the lowest free VMID. No stack can create a VM while its
// first install is held, so every stack's first install picks the same VMID,
// and all but the first to be released lose it. From the first VM on, nothing
// is held and the simulator probes as the server does (both ends of the range,
// the first free answer): the retries and the other installs race as they
// would on the real server, where losing twice in a row is rare.
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { diagnostics, newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const STACKS = ["a", "b", "c"];
const VMS = 4;
/** Simulated ms at speed 2000: 4 s of real time, room for the stacks' engines to start a few seconds apart. */
const HOLD_MS = 8_000_000;

let sim: SimulatorHandle;
const fleets: Fleet[] = [];
beforeAll(async () => {
  sim = await startSimulator({ speed: 2000, durationsZero: true, sshKey: true, vmidPick: "lowest" });
  for (const s of STACKS) {
    const fleet = await newFleet({}, { sim, stackName: `race-${s}` });
    fleets.push(fleet);
    await fleet.setVms(
      Object.fromEntries(
        Array.from({ length: VMS }, (_, i) => [`${s}${i}`, { os: "ubuntu", version: "24.04", name: `${s}${i}` }]),
      ),
    );
  }
});
afterAll(async () => {
  for (const f of fleets) await f.dispose();
  await sim?.close();
});

/**
 * Until the first VM exists (polled: the simulator runs in this process), installs are held before
 * `creating VM` (one per stack at most: a stack's next waits for its first) and picks are the lowest free
 * VMID; then nothing more is held, and the simulator probes as the server does.
 */
async function raceUntilFirstVm(until: Promise<unknown>): Promise<void> {
  const hold = sim.addFault({ kind: "delay", op: "install", step: "creating VM", ms: HOLD_MS, times: STACKS.length });
  let done = false;
  void until.finally(() => (done = true));
  while (!done && sim.vms().length === 0) await new Promise((r) => setTimeout(r, 1));
  sim.removeFault(hold);
  sim.settings({ vmidPick: "probe" });
}

test("three stacks racing for VMIDs: the losers are retried, every deployment succeeds, every VM in exactly one state", async () => {
  const all = Promise.allSettled(fleets.map((f) => f.up()));
  await raceUntilFirstVm(all);
  const ups = await all;
  expect(ups.map((u) => (u.status === "fulfilled" ? u.value.summary.result : String(u.reason)))).toEqual(
    STACKS.map(() => "succeeded"),
  );
  // The race happened, and each lost install was retried once.
  const retries = fleets
    .flatMap((f, s) => Array.from({ length: VMS }, (_, i) => diagnostics(f.last.events, `${STACKS[s]}${i}`, "warning")))
    .flat()
    .filter((l) => /the auto-assigned VMID race.*retrying the install once/.test(l));
  expect(sim.stats().vmidCollisions).toBeGreaterThanOrEqual(1);
  expect(retries).toHaveLength(sim.stats().vmidCollisions);
  // A retry is no recovery: it never follows another stack's VM as an interrupted create of its own.
  for (const f of fleets) expect(f.output.join("")).not.toMatch(/interrupted create/);

  const inStates = fleets.flatMap((f) => Object.values(f.resources()).map((r) => Number(r.id)));
  expect(inStates).toHaveLength(STACKS.length * VMS);
  expect(new Set(inStates).size).toBe(inStates.length); // no VMID in two states
  const onServer = sim.vms().map((v) => v.vmid);
  expect(onServer.sort((x, y) => x - y)).toEqual([...inStates].sort((x, y) => x - y)); // no orphan
  // Each stack's VMs carry the names it gave them.
  for (const [i, f] of fleets.entries()) {
    for (const [name, r] of Object.entries(f.resources())) {
      expect(name.startsWith(STACKS[i]!)).toBe(true);
      expect(sim.vm(Number(r.id))?.name).toBe(`${name}-${r.id}`);
    }
  }

  const downs = await Promise.allSettled(fleets.map((f) => f.destroy()));
  expect(downs.map((d) => d.status)).toEqual(STACKS.map(() => "fulfilled"));
  expect(sim.vms()).toEqual([]);
});
