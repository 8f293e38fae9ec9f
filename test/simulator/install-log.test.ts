// One record per install flow, by the real clock: when the server began and
// finished it and how it ended - what a client's time to a verdict is
// measured against. The records outlive a restart, which is what cuts an
// install short.
import { open, request, until, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"], durationsZero: true };
const install = (url: string, body: object) =>
  request(url, "POST", "/api/vm/install", { body: { ...UBUNTU, ...body } });

describe("installs()", () => {
  test("a completed install: its VMID, name, and times between the request and the close", async () => {
    const sim = await start(FAST);
    const before = Date.now();
    const r = await install(sim.url, { id: 101, name: "web" });
    const after = Date.now();
    expect(r.body).toContain("[+] VM installation completed");
    const [record] = sim.installs();
    expect(record).toEqual({
      vmid: 101,
      requestedName: "web",
      cipassword: "passwd", // the server's literal default: the body gave none
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
      outcome: "completed",
    });
    expect(record!.startedAt).toBeGreaterThanOrEqual(before);
    expect(record!.endedAt).toBeGreaterThanOrEqual(record!.startedAt);
    expect(record!.endedAt).toBeLessThanOrEqual(after);
  });

  test("the password the install gives the VM (qm set --cipassword): the body's, else the server's default", async () => {
    const sim = await start(FAST);
    await install(sim.url, { id: 101, passwd: "a-given-pass" });
    await install(sim.url, { id: 102 });
    expect(sim.installs().map((i) => i.cipassword)).toEqual(["a-given-pass", "passwd"]);
  });

  test("outcomes: error, silent; an auto VMID never found stays null; requests that never start a flow leave none", async () => {
    const sim = await start({ ...FAST, assignIpStart: 100, assignIpEnd: 100, vms: [{ vmid: 100 }] });
    sim.addFault({ op: "install", step: "validating OS image URL", kind: "fail", times: 1 });
    sim.addFault({ op: "install", step: "starting VM", kind: "fail", times: 1 });
    await install(sim.url, { id: 101 });
    await install(sim.url, { id: 102 });
    await install(sim.url, {});
    // A body that does not bind, and an IP refusal: the handler answers, no flow begins.
    await install(sim.url, { os: "windows" });
    sim.settings({ allowIps: "10.0.0.1" });
    await install(sim.url, { id: 103 });
    expect(sim.installs().map((r) => [r.vmid, r.outcome])).toEqual([
      [101, "error"],
      [102, "silent"],
      [null, "error"],
    ]);
  });

  test("an install in flight has no end yet; a dropped one ends after its client lost the stream", async () => {
    const sim = await start({ ...FAST, durations: { sshInit: 100_000 } });
    sim.addFault({ op: "install", step: "creating VM", kind: "drop" });
    const r = await install(sim.url, { id: 101 });
    const lostAt = Date.now();
    expect(r.complete).toBe(false);
    expect(sim.installs()).toEqual([
      {
        vmid: 101,
        requestedName: "",
        cipassword: "passwd",
        startedAt: expect.any(Number),
        endedAt: null,
        outcome: null,
      },
    ]);
    await sim.idle();
    expect(sim.installs()[0]?.outcome).toBe("completed");
    expect(sim.installs()[0]?.endedAt).toBeGreaterThanOrEqual(lostAt);
  });

  test("a restart cuts an install short, and the records carry over while the counters start again", async () => {
    const sim = await start(FAST);
    sim.addFault({ op: "install", name: "db", step: "SSH initialization", kind: "delay", ms: 1e9 });
    await install(sim.url, { id: 100 });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101, name: "db" } });
    await s.waitFor("[*] VM strting");
    const before = Date.now();
    await sim.restart();
    expect(sim.stats().installsStarted).toBe(0);
    expect(sim.installs().map((r) => [r.vmid, r.requestedName, r.outcome])).toEqual([
      [100, "", "completed"],
      [101, "db", "cut-short"],
    ]);
    expect(sim.installs()[1]?.endedAt).toBeGreaterThanOrEqual(before);
  });

  test("/_sim/state carries them", async () => {
    const sim = await start(FAST);
    await install(sim.url, { id: 101 });
    await until(() => sim.installs()[0]?.outcome !== null);
    const state = JSON.parse((await request(sim.url, "GET", "/_sim/state")).body) as { installs: unknown };
    expect(state.installs).toEqual(sim.installs());
  });
});
