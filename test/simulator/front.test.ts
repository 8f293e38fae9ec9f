// What stands in front of the server: a gateway that buffers whole responses
// (the operation runs, the client gets the gateway's own answer after its
// timeout) and a black hole (the request is read, nothing is ever answered or
// done). Times are checked against the scaled timeout: real ms = ms / speed.
import { open, request, until, useSimulators, UBUNTU } from "./helpers";
import { rawRequest } from "./raw";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"] };
const GATEWAY_BODY = '{"message":"Endpoint request timed out"}';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("gateway: the server works unheard, the gateway answers on its own clock", () => {
  test("defaults: 504 JSON after 29 s; a plain stop is carried out before that", async () => {
    const sim = await start({ speed: 100, vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "stop", kind: "gateway" });
    const began = Date.now();
    const s = open(sim.url, "POST", "/api/vm/101/stop");
    // qm stop takes 0.6 s: the VM is off long before the gateway answers.
    await until(() => sim.vm(101)?.status === "stopped");
    expect(s.text()).toBe("");
    const r = await s.done;
    const took = Date.now() - began;
    expect([r.status, r.headers["content-type"], r.body]).toEqual([504, "application/json", GATEWAY_BODY]);
    expect(took).toBeGreaterThanOrEqual(290 - 2);
    expect(sim.stats().requests.stop).toBe(1);
  });

  test("no byte reaches the client while the server streams: not even the event-stream headers", async () => {
    const sim = await start({ ...FAST, durationsZero: true });
    sim.addFault({ op: "install", kind: "gateway", ms: 1e9 });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 101 });
    await until(() => sim.stats().requests.install === 1);
    await sim.idle();
    // The install has finished server-side; its stream went nowhere.
    expect(sim.vm(101)?.running).toBe(true);
    expect(sim.installs()[0]?.outcome).toBe("completed");
    expect((await request(sim.url, "GET", "/api/health")).body).toBe("ok");
    expect([conn.text(), conn.ended]).toEqual(["", false]);
    conn.destroy();
  });

  test("an install longer than the gateway's timeout: the answer comes first, the VM later", async () => {
    const sim = await start(FAST);
    sim.addFault({
      op: "install",
      kind: "gateway",
      ms: 5_000,
      status: 502,
      body: "<html>Bad Gateway</html>",
      contentType: "text/html",
    });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101, name: "web" } });
    const answeredAt = Date.now();
    expect([r.status, r.headers["content-type"], r.body]).toEqual([502, "text/html", "<html>Bad Gateway</html>"]);
    expect(sim.installs()).toEqual([
      {
        vmid: 101,
        requestedName: "web",
        cipassword: expect.any(String),
        startedAt: expect.any(Number),
        endedAt: null,
        outcome: null,
      },
    ]);
    expect(sim.vm(101)?.running).not.toBe(true);
    await sim.idle();
    expect(sim.vm(101)).toMatchObject({ name: "web-101", running: true });
    const [record] = sim.installs();
    expect(record?.outcome).toBe("completed");
    expect(record?.endedAt).toBeGreaterThanOrEqual(answeredAt);
  });

  test("an operation that ends before the timeout: still the gateway's status, and only at the timeout", async () => {
    const sim = await start({ ...FAST, durationsZero: true });
    sim.addFault({ op: "install", kind: "gateway", ms: 300_000 });
    const began = Date.now();
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });
    const answeredAt = Date.now();
    expect([r.status, r.body]).toEqual([504, GATEWAY_BODY]);
    expect(answeredAt - began).toBeGreaterThanOrEqual(300 - 2);
    const [record] = sim.installs();
    expect(record?.outcome).toBe("completed");
    expect(record?.endedAt).toBeLessThan(answeredAt);
    expect(sim.vm(101)?.running).toBe(true);
  });

  test.each([
    ["start", {}, { vmid: 101 }, { running: true }],
    ["reboot", {}, { vmid: 101, running: true }, { running: true }],
    ["set/node", { node: "pve2" }, { vmid: 101 }, { node: "pve2" }],
  ])("%s behind a gateway runs to its end server-side", async (action, body, seed, after) => {
    const sim = await start({ durationsZero: true, vms: [seed] });
    sim.addFault({ kind: "gateway", ms: 1_000 });
    const r = await request(sim.url, "POST", `/api/vm/101/${action}`, { body });
    expect(r.status).toBe(504);
    await sim.idle();
    expect(sim.vm(101)).toMatchObject(after);
  });

  test("`times` retires it: the next request is the server's own answer", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "status", kind: "gateway", ms: 0, times: 1 });
    expect((await request(sim.url, "GET", "/api/vm/101/status")).status).toBe(504);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
  });
});

describe("hang: the request is read and never answered, nothing is done", () => {
  test("install: no status line, no header, no VM, no install flow", async () => {
    const sim = await start({ ...FAST, durationsZero: true });
    sim.addFault({ op: "install", kind: "hang" });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 101 });
    await until(() => sim.stats().requests.install === 1);
    // Long enough for a whole zero-duration install, had one begun.
    await sleep(50);
    await sim.idle();
    expect((await request(sim.url, "GET", "/api/health")).body).toBe("ok");
    expect([conn.text(), conn.ended]).toEqual(["", false]);
    expect(sim.vms()).toEqual([]);
    expect(sim.installs()).toEqual([]);
    expect(sim.stats().installsStarted).toBe(0);
    conn.destroy();
  });

  test("a plain action is not carried out; its step does not matter; close() ends the connection", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "stop", step: "stop", kind: "hang", times: 1 });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/101/stop");
    await until(() => sim.stats().requests.stop === 1);
    await sleep(20);
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(true);
    expect(conn.text()).toBe("");
    // The rule has retired: the next stop is answered and done.
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
    expect(conn.ended).toBe(false);
    await sim.close();
    await conn.closed;
    expect(conn.text()).toBe("");
  });

  test("a client that gives up leaves nothing behind", async () => {
    const sim = await start({ vms: [{ vmid: 101 }] });
    sim.addFault({ op: "start", kind: "hang" });
    const s = open(sim.url, "POST", "/api/vm/101/start");
    await until(() => sim.stats().requests.start === 1);
    s.abort();
    await expect(s.done).rejects.toThrow();
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(false);
    expect(sim.stats().activeFlows).toBe(0);
  });
});
