// A failing `qm shutdown`: the handler's 500 with both prefixes and qm's
// output, and the VM left running - at once (a busy VM), or `ms` later (a
// guest that ignores the power button until qm gives up).
import { open, request, until, useSimulators } from "./helpers";

const start = useSimulators();
const TEXT = "text/plain; charset=utf-8";
const PREFIX = "failed to shutdown VM: [-] failed to shutdown VM: ";
const LOCK =
  "exit status 255, output: trying to acquire lock...\ncan't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout\n";

describe("a fail rule on shutdown", () => {
  test("answers 500 right after qm shutdown, without waiting for the guest; the VM keeps running", async () => {
    // A guest that would take for ever: an answer at all proves nobody waited for it.
    const sim = await start({ speed: 10, guestShutdownMs: 1e9, vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "shutdown", kind: "fail" });
    const began = Date.now();
    const r = await request(sim.url, "POST", "/api/vm/101/shutdown");
    const took = Date.now() - began;
    expect([r.status, r.headers["content-type"], r.body]).toEqual([500, TEXT, `${PREFIX}${LOCK}\n`]);
    // qmShutdown is 500 simulated ms: 50 ms here, with room for a loaded machine; 2.5 s is 25 simulated s.
    expect(took).toBeGreaterThanOrEqual(50 - 1);
    expect(took).toBeLessThan(2_500);
    expect(sim.vm(101)).toMatchObject({ status: "running", shuttingDown: false });
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
  });

  test("with ms: qm waits that long for the guest, then gives up with its timeout text", async () => {
    const sim = await start({ speed: 100, vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "shutdown", kind: "fail", ms: 30_000 });
    const began = Date.now();
    const s = open(sim.url, "POST", "/api/vm/101/shutdown");
    await until(() => sim.vm(101)?.shuttingDown === true);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    expect(s.text()).toBe("");
    const r = await s.done;
    const took = Date.now() - began;
    expect([r.status, r.body]).toEqual([
      500,
      `${PREFIX}exit status 255, output: VM quit/powerdown failed - got timeout\n\n`,
    ]);
    // qmShutdown (5 ms), then the rule's 300 ms; the guest never powers off by itself meanwhile.
    expect(took).toBeGreaterThanOrEqual(305 - 2);
    expect(sim.vm(101)).toMatchObject({ status: "running", shuttingDown: false });
  });

  test("with ms and a detail: the detail is what qm said", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "shutdown", kind: "fail", ms: 1_000, detail: "exit status 2, output: " });
    const r = await request(sim.url, "POST", "/api/vm/101/shutdown");
    expect([r.status, r.body]).toEqual([500, `${PREFIX}exit status 2, output: \n`]);
  });

  test("with ms, a hard stop meanwhile: qm shutdown sees the guest off and answers ok", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "shutdown", kind: "fail", ms: 1e9 });
    const s = open(sim.url, "POST", "/api/vm/101/shutdown");
    await until(() => sim.vm(101)?.shuttingDown === true);
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
    const r = await s.done;
    expect([r.status, r.body]).toEqual([200, "ok"]);
    expect(sim.vm(101)).toMatchObject({ status: "stopped", shuttingDown: false });
  });
});
