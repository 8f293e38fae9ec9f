// A server restart mid-operation, as the real server has it: in-flight work
// dies with the process, without its clean-up; what was done stays done (a
// VM already created stays half-made); the new process serves the same port
// from the same cluster.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator } from "../../simulator";
import { open, request, until, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"] };

describe("restart()", () => {
  test("mid-install after creating VM: the stream breaks, the VM stays half-made, nothing finishes it", async () => {
    // A failing SSH initialization would clean up - but the process dies first.
    const sim = await start({ ...FAST, faults: [{ op: "install", step: "SSH initialization", kind: "fail" }] });
    const url = sim.url;
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 150, name: "web" } });
    await s.waitFor("[+] VM created successfully");
    await sim.restart();
    const r = await s.done;
    expect(r.complete).toBe(false);
    expect(r.body).not.toContain("event: close");

    expect(sim.url).toBe(url);
    await sim.idle();
    // Created, never initialized (no OS tag, no disk size yet), never started, not cleaned up.
    expect(sim.vm(150)).toMatchObject({ name: "web-150", os: "", diskGb: 0, running: false });
    expect(sim.stats()).toMatchObject({ installsStarted: 0, activeFlows: 0 });
    const list = JSON.parse((await request(sim.url, "GET", "/api/vm/list")).body);
    expect(list.list.map((v: { vmid: number }) => v.vmid)).toEqual([150]);
    // The fault rules carried over.
    expect(sim.faults().map((f) => f.kind)).toEqual(["fail"]);
  });

  test("a process that takes a while to come back: connections are refused meanwhile; a VM past its start stays running, never initialised", async () => {
    const sim = await start({ ...FAST, speed: 200 });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 152, name: "half" } });
    await s.waitFor("waiting for ready");
    const back = sim.restart({ downMs: 1_000 });
    await until(() =>
      request(sim.url, "GET", "/api/vm/list").then(
        () => false,
        (err: { code?: string }) => err.code === "ECONNREFUSED",
      ),
    );
    await back;
    expect((await s.done).complete).toBe(false);
    await sim.idle();
    // Nothing drives the install any more: no SSH initialisation, no reboot, and nobody cleans up.
    expect(sim.vm(152)).toMatchObject({ name: "half-152", status: "running" });
    expect(sim.installs().at(-1)).toMatchObject({ vmid: 152 });
    expect(sim.installs().at(-1)?.outcome).toBe("cut-short");
    expect((await request(sim.url, "GET", "/api/vm/152/status")).body).toBe("running");
  });

  test("mid-install before creating VM: nothing was made, nothing appears", async () => {
    const sim = await start({ sshKey: true, durations: { downloadImage: 1e9 } });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 151 } });
    await s.waitFor("[*] start downloading OS image");
    await sim.restart();
    expect((await s.done).complete).toBe(false);
    expect(sim.vms()).toEqual([]);
    // The image never finished downloading either.
    expect(sim.state().images).toEqual([]);
  });

  test("a waiting shutdown dies with the process: no answer, the VM still runs", async () => {
    const sim = await start({ guestShutdownMs: 1e9, vms: [{ vmid: 102, running: true }] });
    const down = open(sim.url, "POST", "/api/vm/102/shutdown");
    await until(() => sim.vm(102)?.shuttingDown === true);
    await sim.restart();
    // No answer at all: the connection goes with the process.
    await expect(down.done).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(sim.vm(102)).toMatchObject({ status: "running", shuttingDown: false });
    expect((await request(sim.url, "GET", "/api/vm/102/status")).body).toBe("running");
  });

  test("the restarted server serves requests and can restart again; after close it refuses", async () => {
    const sim = await start({ vms: [{ vmid: 101 }] });
    sim.settings({ speed: 5000 });
    await sim.restart();
    expect(sim.state().vms.map((v) => v.vmid)).toEqual([101]);
    await sim.restart();
    expect((await request(sim.url, "POST", "/api/vm/101/start")).body).toContain("VM started successfully");
    await sim.close();
    await expect(sim.restart()).rejects.toThrow(/closed/);
  });
});

describe("close, then start again on the same state file and port", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sim-restart-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("the VM a dead install had created is there, as it was", async () => {
    const stateFile = path.join(dir, "state.json");
    const one = await startSimulator({ ...FAST, speed: 1000, stateFile });
    const s = open(one.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 160 } });
    await s.waitFor("[+] VM initialized successfully");
    await one.close();
    expect((await s.done).complete).toBe(false);
    const two = await startSimulator({ speed: 1000, stateFile, port: one.port });
    try {
      expect(two.url).toBe(one.url);
      expect(two.vm(160)).toMatchObject({ os: "ubuntu", diskGb: 16, running: false });
      expect((await request(two.url, "GET", "/api/vm/160/status")).body).toBe("stopped");
    } finally {
      await two.close();
    }
  });
});
