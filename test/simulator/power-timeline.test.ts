// The power timeline: every running <-> stopped change, recorded once per
// real change with the VM's vmid and name and both clocks, the moments a
// guest stops and starts serving (its shutdown's power button, SSH answering
// again), and the replays that answer how many VMs of a group were stopped,
// or down for their users, at once. The tests pin
// exact entries so that a missed or doubled record fails them.
import { mostDownAtOnce, mostStoppedAtOnce, POWER_TIMELINE_LIMIT, type PowerChange } from "../../simulator";
import { Clock } from "../../simulator/clock";
import { PowerTimeline } from "../../simulator/power-timeline";
import { request, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();

/** The parts that do not depend on timing: who changed to what, in order. */
const changes = (timeline: PowerChange[]): string[] => timeline.map((c) => `${c.vmid} ${c.name} ${c.status}`);

/** The i-th change, or a failed test when there is none. */
function nth(timeline: PowerChange[], i: number): PowerChange {
  const c = timeline[i];
  if (!c) throw new Error(`no change #${i} in a timeline of ${timeline.length}`);
  return c;
}

const entry = (vmid: number, status: PowerChange["status"], simMs: number): PowerChange => ({
  vmid,
  name: String(vmid),
  status,
  simMs,
  wallMs: 0,
});

describe("what is recorded", () => {
  test("a shutdown records running -> stopped once, with the name and both clocks", async () => {
    const sim = await start({ guestShutdownMs: 20_000, vms: [{ vmid: 101, requestedName: "web", running: true }] });
    const before = Date.now();
    expect((await request(sim.url, "POST", "/api/vm/101/shutdown")).body).toBe("ok");
    const after = Date.now();
    const timeline = sim.powerTimeline();
    // the power button first (the guest stops serving), then off
    expect(changes(timeline)).toEqual(["101 web-101 shutting-down", "101 web-101 stopped"]);
    expect(nth(timeline, 1).wallMs).toBeGreaterThanOrEqual(nth(timeline, 0).wallMs);
    expect(nth(timeline, 0).wallMs).toBeGreaterThanOrEqual(before);
    expect(nth(timeline, 0).wallMs).toBeLessThanOrEqual(after);
    // the guest's 20 s of shutting down came between the two, in simulated time
    expect(nth(timeline, 1).simMs - nth(timeline, 0).simMs).toBeGreaterThanOrEqual(15_000);
    await sim.idle();
    expect(sim.powerTimeline()).toHaveLength(2);
  });

  test("a start records stopped -> running", async () => {
    const sim = await start({ vms: [{ vmid: 101 }] });
    expect((await request(sim.url, "POST", "/api/vm/101/start")).status).toBe(200);
    // running at qm start, serving once SSH answers
    expect(changes(sim.powerTimeline())).toEqual(["101 101 running", "101 101 ready"]);
  });

  test("a hard stop records running -> stopped", async () => {
    const sim = await start({ vms: [{ vmid: 102, running: true }] });
    expect((await request(sim.url, "POST", "/api/vm/102/stop")).body).toBe("ok");
    expect(changes(sim.powerTimeline())).toEqual(["102 102 stopped"]);
  });

  test("a reboot records its stopped moment: stopped, then running once Proxmox starts it again", async () => {
    const sim = await start({
      durations: { qmReboot: 0, rebootStopped: 100_000, finalizePause: 0 },
      vms: [{ vmid: 101, running: true }],
    });
    expect((await request(sim.url, "POST", "/api/vm/101/reboot")).status).toBe(200);
    await sim.idle();
    const timeline = sim.powerTimeline();
    expect(changes(timeline)).toEqual(["101 101 stopped", "101 101 running", "101 101 ready"]);
    // The moment lasted rebootStopped (100 s) of simulated time; a little slack for coarse timers.
    expect(nth(timeline, 1).simMs - nth(timeline, 0).simMs).toBeGreaterThanOrEqual(80_000);
  });

  test("a reboot without a stopped moment (rebootStopped 0) records nothing", async () => {
    const sim = await start({ durations: { rebootStopped: 0 }, vms: [{ vmid: 101, running: true }] });
    expect((await request(sim.url, "POST", "/api/vm/101/reboot")).status).toBe(200);
    await sim.idle();
    // no power change: only SSH answering again
    expect(changes(sim.powerTimeline())).toEqual(["101 101 ready"]);
  });

  test("an install that ends running: qm start, the reboot's stop and Proxmox's start", async () => {
    const sim = await start({ sshKey: true, imageCache: ["ubuntu/24.04"] });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 120, name: "web" } });
    expect(r.body).toContain("[+] VM installation completed");
    await sim.idle();
    expect(changes(sim.powerTimeline())).toEqual([
      "120 web-120 running",
      "120 web-120 ready",
      "120 web-120 stopped",
      "120 web-120 running",
      "120 web-120 ready",
    ]);
    expect(sim.vm(120)?.status).toBe("running");
  });

  test("an install that fails after qm start records the clean-up's stop; one that fails before records nothing", async () => {
    const sim = await start({
      sshKey: true,
      imageCache: ["ubuntu/24.04"],
      faults: [
        { op: "install", vmid: 121, step: "SSH initialization", kind: "fail" },
        { op: "install", vmid: 122, step: "importing disk image", kind: "fail" },
      ],
    });
    await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 121 } });
    await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 122 } });
    await sim.idle();
    expect(sim.vms()).toEqual([]);
    expect(changes(sim.powerTimeline())).toEqual(["121 121 running", "121 121 ready", "121 121 stopped"]);
  });

  test("no change, no entry: refused calls, adding and removing VMs, drift to the same state", async () => {
    const sim = await start({ vms: [{ vmid: 101 }, { vmid: 102, running: true }] });
    const stop = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([stop.status, stop.body]).toEqual([400, "VM is not running"]);
    expect((await request(sim.url, "POST", "/api/vm/101/shutdown")).status).toBe(400);
    expect((await request(sim.url, "POST", "/api/vm/102/start")).body).toContain("VM is running");
    sim.addVm({ vmid: 103, running: true });
    expect(sim.removeVm(103)).toBe(true);
    sim.mutateVm(101, { running: false });
    // Both fields: `status` wins, and the VM never was anything but running.
    sim.mutateVm(102, { running: false, status: "running" });
    expect(sim.powerTimeline()).toEqual([]);
  });

  test("drift on the power state records, as any other change", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.mutateVm(101, { status: "stopped" });
    sim.mutateVm(101, { running: true });
    expect(changes(sim.powerTimeline())).toEqual(["101 101 stopped", "101 101 running"]);
  });

  test("kept across restart(), with simulated time still going forward", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
    await sim.restart();
    sim.mutateVm(101, { running: true });
    const timeline = sim.powerTimeline();
    expect(changes(timeline)).toEqual(["101 101 stopped", "101 101 running"]);
    expect(nth(timeline, 1).simMs).toBeGreaterThan(nth(timeline, 0).simMs);
  });

  test("powerTimeline() is a copy; /_sim/timeline and /_sim/state answer the same list", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    await request(sim.url, "POST", "/api/vm/101/stop");
    const mine = sim.powerTimeline();
    nth(mine, 0).status = "running";
    mine.push(entry(999, "stopped", 0));
    expect(changes(sim.powerTimeline())).toEqual(["101 101 stopped"]);
    const overHttp = await request(sim.url, "GET", "/_sim/timeline");
    expect(overHttp.status).toBe(200);
    expect(JSON.parse(overHttp.body)).toEqual(sim.powerTimeline());
    const state = JSON.parse((await request(sim.url, "GET", "/_sim/state")).body) as { powerTimeline: unknown };
    expect(state.powerTimeline).toEqual(sim.powerTimeline());
    expect(sim.state().powerTimeline).toEqual(sim.powerTimeline());
  });
});

describe("the bound", () => {
  test("the oldest entries go once the limit is reached", () => {
    expect(POWER_TIMELINE_LIMIT).toBe(10_000);
    const t = new PowerTimeline(3);
    for (let i = 0; i < 5; i++) t.record(entry(100 + i, "stopped", i));
    expect(t.list().map((c) => c.vmid)).toEqual([102, 103, 104]);
  });
});

describe("simulated time", () => {
  test("runs at the speed, and a speed change does not move the time already gone by", async () => {
    const clock = new Clock(1000, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 30));
    const fast = clock.now();
    expect(fast).toBeGreaterThanOrEqual(15_000);
    clock.setSpeed(1);
    const slow = clock.now();
    expect(slow).toBeGreaterThanOrEqual(fast);
    // At speed 1, a few real ms are a few simulated ms, not thousands.
    await new Promise((r) => setTimeout(r, 10));
    expect(clock.now() - slow).toBeLessThan(1_000);
  });
});

describe("mostStoppedAtOnce", () => {
  const group = [101, 102, 103, 104];

  test("a hand-made timeline: the peak, when it was first reached, and who", () => {
    const timeline = [
      entry(101, "stopped", 0),
      entry(102, "stopped", 10),
      entry(101, "running", 20),
      // Same instant, start first: never three at once here.
      entry(103, "stopped", 20),
      entry(104, "stopped", 30),
      entry(102, "running", 40),
      entry(101, "stopped", 50),
    ];
    expect(mostStoppedAtOnce(timeline, group)).toEqual({ most: 3, at: 30, stopped: [102, 103, 104] });
    // Only the group counts.
    expect(mostStoppedAtOnce(timeline, [101, 102])).toEqual({ most: 2, at: 10, stopped: [101, 102] });
  });

  test("at the same instant the recorded order decides: a stop before a start counts both", () => {
    const stopFirst = [entry(101, "stopped", 0), entry(102, "stopped", 20), entry(101, "running", 20)];
    expect(mostStoppedAtOnce(stopFirst, group)).toEqual({ most: 2, at: 20, stopped: [101, 102] });
    const startFirst = [entry(101, "stopped", 0), entry(101, "running", 20), entry(102, "stopped", 20)];
    expect(mostStoppedAtOnce(startFirst, group)).toEqual({ most: 1, at: 0, stopped: [101] });
  });

  test("entries out of order are replayed by simulated time", () => {
    const shuffled = [entry(102, "stopped", 10), entry(101, "running", 5), entry(101, "stopped", 0)];
    expect(mostStoppedAtOnce(shuffled, group)).toEqual({ most: 1, at: 0, stopped: [101] });
  });

  test("the state before the first change, and VMs without any change", () => {
    // 101 starts first: it was stopped before. 103 never changes: stopped only if said so.
    const timeline = [entry(101, "running", 5), entry(102, "stopped", 10)];
    expect(mostStoppedAtOnce(timeline, group)).toEqual({ most: 1, stopped: [101] });
    expect(mostStoppedAtOnce(timeline, group, [103])).toEqual({ most: 2, stopped: [101, 103] });
    expect(mostStoppedAtOnce([], group)).toEqual({ most: 0, stopped: [] });
  });

  test("a real run: two shutdowns that overlap count 2, one after the other count 1", async () => {
    const vms = [
      { vmid: 101, running: true },
      { vmid: 102, running: true },
    ];
    const shutdown = (url: string, vmid: number) => request(url, "POST", `/api/vm/${vmid}/shutdown`);
    const boot = (url: string, vmid: number) => request(url, "POST", `/api/vm/${vmid}/start`);

    const apart = await start({ guestShutdownMs: 20_000, vms });
    expect((await shutdown(apart.url, 101)).body).toBe("ok");
    expect((await boot(apart.url, 101)).status).toBe(200);
    expect((await shutdown(apart.url, 102)).body).toBe("ok");
    expect((await boot(apart.url, 102)).status).toBe(200);
    const one = apart.powerTimeline();
    expect(changes(one)).toEqual([
      "101 101 shutting-down",
      "101 101 stopped",
      "101 101 running",
      "101 101 ready",
      "102 102 shutting-down",
      "102 102 stopped",
      "102 102 running",
      "102 102 ready",
    ]);
    expect(mostStoppedAtOnce(one, [101, 102])).toEqual({ most: 1, at: nth(one, 1).simMs, stopped: [101] });
    // down for users from the power button until SSH answers: one at a time too
    expect(mostDownAtOnce(one, [101, 102])).toEqual({ most: 1, at: nth(one, 0).simMs, stopped: [101] });

    const together = await start({ guestShutdownMs: 20_000, vms });
    const downs = await Promise.all([shutdown(together.url, 101), shutdown(together.url, 102)]);
    expect(downs.map((d) => d.body)).toEqual(["ok", "ok"]);
    await Promise.all([boot(together.url, 101), boot(together.url, 102)]);
    const two = together.powerTimeline().filter((c) => c.status === "running" || c.status === "stopped");
    expect(two.map((c) => c.status)).toEqual(["stopped", "stopped", "running", "running"]);
    const peak = mostStoppedAtOnce(together.powerTimeline(), [101, 102]);
    expect(peak).toEqual({ most: 2, at: nth(two, 1).simMs, stopped: [101, 102] });
    expect(mostDownAtOnce(together.powerTimeline(), [101, 102]).most).toBe(2);
  });
});

describe("mostDownAtOnce", () => {
  test("down from the power button (or a stop) until SSH answers; a VM that never answers stays down", () => {
    const timeline = [
      entry(1, "shutting-down", 0),
      entry(2, "shutting-down", 5),
      entry(1, "stopped", 10),
      entry(1, "running", 11),
      entry(1, "ready", 40),
      entry(3, "stopped", 41),
      entry(2, "stopped", 50),
    ];
    expect(mostDownAtOnce(timeline, [1, 2, 3])).toEqual({ most: 2, at: 5, stopped: [1, 2] });
    // a VM running again is not serving until SSH answers: 1 counts down at 11 too
    expect(mostDownAtOnce(timeline.slice(0, 4), [1, 2])).toEqual({ most: 2, at: 5, stopped: [1, 2] });
    // 2 and 3 never answer again: both down at the end
    expect(mostDownAtOnce([...timeline, entry(4, "ready", 60)], [2, 3]).most).toBe(2);
    expect(mostDownAtOnce(timeline, [9])).toEqual({ most: 0, stopped: [] });
  });

  test("mostStoppedAtOnce counts power changes only", () => {
    const timeline = [
      entry(1, "shutting-down", 0),
      entry(2, "shutting-down", 1),
      entry(1, "stopped", 10),
      entry(1, "running", 11),
    ];
    expect(mostStoppedAtOnce(timeline, [1, 2]).most).toBe(1);
  });
});
