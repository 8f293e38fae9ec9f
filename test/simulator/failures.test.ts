// The wire doc's failure shapes, reached on demand through fault rules:
// (1) error event then close, (2) bare line and no close, (3) close without
// error or completion, (4) dropped or silent connection while the server
// carries on, (5) non-200 answers - and which failures clean up the VM.
import { CLOSE, ev, frames, lines, open, request, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04", "rockylinux/9"], durations: { sshTimeout: 60_000 } };
const install = (url: string, body: object = {}) =>
  request(url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101, ...body } });
const LOCK =
  "exit status 255, output: trying to acquire lock...\ncan't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout\n";

describe("(1) error event, then close", () => {
  test("a failing step sends its error event and the handler closes", async () => {
    const sim = await start({ ...FAST, faults: [{ op: "install", step: "validating OS image URL", kind: "fail" }] });
    const r = await install(sim.url);
    expect(frames(r.body).slice(-3)).toEqual([
      ev("OS preparation > validating OS image URL", "processing", "[*] check OS image URL availability"),
      ev(
        "OS preparation > validating OS image URL",
        "error",
        "[-] OS image URL is not accessible: failed to access URL: 404 Not Found",
      ),
      CLOSE,
    ]);
    expect(sim.vms()).toEqual([]);
  });

  test("`detail` replaces the underlying error text", async () => {
    const sim = await start({ imageCache: [], sshKey: true });
    sim.addFault({ step: "OS preparation > downloading OS image", kind: "fail", detail: "unexpected EOF" });
    const r = await install(sim.url);
    expect(frames(r.body).at(-2)).toBe(
      ev("OS preparation > downloading OS image", "error", "[-] failed to download OS image: unexpected EOF"),
    );
    // A failed download caches nothing: the next install downloads again.
    sim.clearFaults();
    const again = await install(sim.url);
    expect(lines(again.body)).toContain(
      "OS preparation > downloading OS image|processing|[*] start downloading OS image",
    );
  });

  test.each([
    ["importing disk image", "VM creation > importing disk image", "[-] failed to import disk image: exit status 255"],
    [
      "initializing configuration",
      "VM initialization > initializing configuration",
      "[-] failed to initialize VM: exit status 255",
    ],
  ])("%s fails: the server destroys the half-made VM, then reports", async (step, full, message) => {
    const sim = await start({ ...FAST, faults: [{ step, kind: "fail" }] });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });
    await s.waitFor("[+] VM created successfully");
    expect(sim.vm(101)).toBeDefined();
    const r = await s.done;
    expect(frames(r.body).slice(-2)).toEqual([ev(full, "error", message), CLOSE]);
    expect(sim.vm(101)).toBeUndefined();
  });

  test("SSH initialization fails: the script's output, cleanup, error (the stderr 'Error:' rule shows)", async () => {
    const sim = await start({ ...FAST, faults: [{ step: "SSH initialization", kind: "fail" }] });
    const r = await install(sim.url, { os: "rockylinux", version: "9" });
    expect(frames(r.body).slice(-4)).toEqual([
      ev("SSH initialization", "processing", "  installing basic packages"),
      ev("SSH initialization", "processing", "  Error: Error: Unable to find a match: sysbench"),
      ev("VM initialization > SSH initialization", "error", "[-] failed to perform SSH initialization: exit status 1"),
      CLOSE,
    ]);
    expect(sim.vm(101)).toBeUndefined();
  });

  test("SSH wait timeout after `VM strting`: error, close, the VM is left running", async () => {
    const sim = await start({ ...FAST, faults: [{ step: "waiting for ready", kind: "fail" }] });
    const r = await install(sim.url);
    expect(frames(r.body).slice(-3)).toEqual([
      ev("VM initialization > waiting for ready", "success", "[*] VM strting"),
      ev("VM initialization > waiting for ready", "error", "[-] failed to connect to VM via SSH: [-] SSH timeout"),
      CLOSE,
    ]);
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("SSH wait timeout after the reboot: error under `rebooting VM`, VM left", async () => {
    const sim = await start({ ...FAST, faults: [{ step: "waiting after reboot", kind: "fail" }] });
    const r = await install(sim.url);
    expect(frames(r.body).slice(-3)).toEqual([
      ev("VM initialization > rebooting VM", "processing", "[+] VM rebooting"),
      ev("VM initialization > rebooting VM", "error", "[-] failed to connect to VM via SSH: [-] SSH timeout"),
      CLOSE,
    ]);
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("start: SSH timeout is an error event and a close; the VM stays running", async () => {
    const sim = await start({
      ...FAST,
      vms: [{ vmid: 101 }],
      faults: [{ op: "start", step: "waiting for SSH", kind: "fail" }],
    });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect(frames(r.body)).toEqual([
      ev("starting VM", "success", "[+] VM starting (0.85s)"),
      ev("waiting for SSH", "error", "[-] failed to connect to VM via SSH: [-] SSH timeout"),
      CLOSE,
    ]);
    expect(sim.vm(101)?.running).toBe(true);
  });
});

describe("(2) a bare message and no close", () => {
  test("qm start fails: CombinedOutput pasted raw (newlines and all)", async () => {
    const sim = await start({ vms: [{ vmid: 101 }], faults: [{ op: "start", kind: "fail", vmid: 101 }] });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect([r.status, r.headers["content-type"], r.complete]).toEqual([200, "text/event-stream", true]);
    expect(r.body).toBe(`data: {"message": "failed to start VM: [-] failed to start VM: ${LOCK}"}\n\n`);
    expect(sim.vm(101)?.running).toBe(false);
  });

  test("qm reboot fails", async () => {
    const sim = await start({
      vms: [{ vmid: 101, running: true }],
      faults: [{ op: "reboot", kind: "fail", detail: "exit status 1, output: " }],
    });
    const r = await request(sim.url, "POST", "/api/vm/101/reboot");
    expect(r.body).toBe(
      'data: {"message": "[-] failed to reboot VM: [-] failed to reboot VM: exit status 1, output: "}\n\n',
    );
  });

  test("qm migrate fails in set/node: its log streams, then the bare line", async () => {
    const sim = await start({ vms: [{ vmid: 101 }], faults: [{ op: "setNode", kind: "fail" }] });
    const r = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve2" } });
    const f = frames(r.body);
    expect(f.at(-3)).toMatch(
      /^data: \{"step":"migrating","status":"processing","message":" {2}2025-01-01 00:00:04 ERROR: migration aborted/,
    );
    expect(f.slice(-2)).toEqual([
      ev("migrating", "processing", "  migration aborted"),
      'data: {"message": "[-] failed to migrate VM: [-] failed to perform migrate: exit status 255"}',
    ]);
    expect(sim.vm(101)?.node).toBe("pve1");
  });
});

describe("(3) close with neither error nor completion", () => {
  test.each([
    ["migrating VM", { node: "pve2" }, "stopped", "pve1"],
    ["starting VM", {}, "stopped", "pve1"],
    ["rebooting VM", {}, "running", "pve1"],
  ])("install: %s fails silently and leaves the VM", async (step, extra, status, node) => {
    const sim = await start({ ...FAST, faults: [{ op: "install", step, kind: "fail" }] });
    const r = await install(sim.url, extra);
    const all = lines(r.body);
    expect(all.filter((l) => l.includes("|error|"))).toEqual([]);
    expect(all.some((l) => l.includes("VM installation completed"))).toBe(false);
    expect(frames(r.body).at(-1)).toBe(CLOSE);
    expect(sim.vm(101)).toMatchObject({ status, node });
    expect(sim.stats().installsSilent).toBe(1);
  });

  test("install with node = the main node: the migration is refused, the stream just closes", async () => {
    const sim = await start(FAST);
    const r = await install(sim.url, { node: "pve1" });
    expect(frames(r.body).slice(-5)).toEqual([
      ev("VM initialization > migrating VM", "processing", "[*] migrate VM to node pve1"),
      ev("migrating", "processing", "  400 Parameter verification failed."),
      ev("migrating", "processing", "  target: target is local node."),
      ev("migrating", "processing", "  qm migrate <vmid> <target> [OPTIONS]"),
      CLOSE,
    ]);
    expect(sim.vm(101)).toMatchObject({ status: "stopped", node: "pve1", os: "ubuntu" });
  });

  test("install with node = another node migrates before starting", async () => {
    const sim = await start(FAST);
    const r = await install(sim.url, { node: "pve2" });
    expect(lines(r.body)).toEqual(
      expect.arrayContaining([
        "VM initialization > migrating VM|success|[+] VM migrated to node pve2 successfully (12.00s)",
        "VM initialization > migrating VM|success|[+] VM started successfully (0.85s)",
      ]),
    );
    expect(sim.vm(101)).toMatchObject({ node: "pve2", running: true });
  });
});

describe("(4) dropped or silent connections; the server carries on", () => {
  test("drop at creating VM: the client's stream breaks, the VM still appears", async () => {
    const sim = await start({
      ...FAST,
      durations: { ...FAST.durations, importDisk: 300_000 },
      faults: [{ step: "creating VM", kind: "drop" }],
    });
    const r = await install(sim.url);
    expect(r.status).toBe(200);
    expect(r.complete).toBe(false);
    expect(r.body).toContain("[+] completed SSH preparation");
    expect(r.body).not.toContain("[*] VM creation");
    expect(sim.vm(101)?.running).not.toBe(true);
    await sim.idle();
    expect(sim.vm(101)).toMatchObject({ running: true, os: "ubuntu" });
    expect(sim.stats()).toMatchObject({ installsSucceeded: 1, connectionsDropped: 1 });
  });

  test("drop plus a later failure: the VM never appears", async () => {
    const sim = await start({
      ...FAST,
      faults: [
        { step: "importing disk image", kind: "drop" },
        { step: "SSH initialization", kind: "fail" },
      ],
    });
    const r = await install(sim.url);
    expect(r.complete).toBe(false);
    await sim.idle();
    expect(sim.vm(101)).toBeUndefined();
    expect(sim.stats().installsFailed).toBe(1);
  });

  test("a client that goes away does not stop the flow either", async () => {
    const sim = await start(FAST);
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });
    await s.waitFor("[*] VM creation");
    s.abort();
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("stall: silence longer than any step, the connection stays open, the VM comes up", async () => {
    const sim = await start({ ...FAST, faults: [{ step: "waiting for ready", kind: "stall" }] });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });
    await s.waitFor("[+] VM started successfully");
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(true);
    // The flow has ended server-side; a later request is answered and still
    // nothing more arrived on the stalled stream.
    const before = s.text();
    expect((await request(sim.url, "GET", "/api/health")).body).toBe("ok");
    expect(s.text()).toBe(before);
    expect(before).not.toContain("VM strting");
    s.abort();
    expect((await s.done).complete).toBe(false);
  });

  test("drop at close: every event arrives, the close never does", async () => {
    const sim = await start({ vms: [{ vmid: 101 }], faults: [{ op: "start", step: "close", kind: "drop" }] });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect(r.body).toContain("[+] VM started successfully");
    expect(r.body).not.toContain("event: close");
  });

  test("a plain action whose connection drops is still carried out", async () => {
    const sim = await start({ vms: [{ vmid: 101 }], faults: [{ op: "destroy", kind: "drop" }] });
    await expect(request(sim.url, "POST", "/api/vm/101/destroy")).rejects.toThrow();
    await sim.idle();
    expect(sim.vm(101)).toBeUndefined();
  });

  test("delay: more silence at a step, counted in its duration", async () => {
    const sim = await start({ ...FAST, faults: [{ step: "creating VM", kind: "delay", ms: 30_000 }] });
    const r = await install(sim.url);
    expect(lines(r.body)).toContain("VM creation > creating VM|success|[+] VM created successfully (31.20s)");
  });
});

describe("(5) non-200 answers and fault mechanics", () => {
  test("http: an answer in place of the server's, nothing done", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    sim.addFault({ op: "stop", kind: "http", status: 502, body: "<html>Bad Gateway</html>", contentType: "text/html" });
    const r = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([r.status, r.headers["content-type"], r.body]).toEqual([502, "text/html", "<html>Bad Gateway</html>"]);
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("plain actions failing in qm: 500 with the handler's and the service's prefixes", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }, { vmid: 102 }] });
    sim.addFault({ op: ["stop", "setCpu"], kind: "fail" });
    const stop = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([stop.status, stop.body]).toEqual([500, `failed to stop VM: [-] failed to stop VM: ${LOCK}\n`]);
    const cpu = await request(sim.url, "POST", "/api/vm/102/set/cpu", { body: { cpu: 4 } });
    expect(cpu.body).toBe(`failed to edit CPU: [-] failed to set CPU: ${LOCK.replace("101", "102")}\n`);
    sim.addFault({ op: "status", kind: "fail" });
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("failed to get VM status: exit status 255");
    sim.addFault({ op: "list", step: "node map", kind: "fail" });
    expect((await request(sim.url, "GET", "/api/vm/list")).body).toBe("failed to get Node Map\n");
  });

  test("rules match by VMID or name, and `times` retires them", async () => {
    const sim = await start({ ...FAST, vms: [{ vmid: 120, requestedName: "db" }, { vmid: 121 }] });
    sim.addFault({ op: "start", name: "db", kind: "fail", times: 1 });
    expect((await request(sim.url, "POST", "/api/vm/121/start")).body).toContain("event: close");
    expect((await request(sim.url, "POST", "/api/vm/120/start")).body).toContain("failed to start VM");
    expect((await request(sim.url, "POST", "/api/vm/120/start")).body).toContain("event: close");
    expect(sim.faults()).toEqual([]);

    const id = sim.addFault({ op: "install", step: "creating VM", name: "web", kind: "fail" });
    const other = await install(sim.url, { id: 130, name: "api" });
    expect(other.body).toContain("[+] VM created successfully");
    const hit = await install(sim.url, { id: 131, name: "web" });
    expect(hit.body).toContain("[-] failed to create VM: exit status 255");
    expect(sim.removeFault(id)).toBe(true);
    expect(sim.stats().faultsFired).toBe(2);
  });

  test("`pass` lets that many matching calls through first: the 3rd start fails, whichever VM it is", async () => {
    const sim = await start({ ...FAST, vms: [{ vmid: 120 }, { vmid: 121 }, { vmid: 122 }, { vmid: 123 }] });
    sim.addFault({ op: "start", kind: "fail", pass: 2, times: 1 });
    // a status matches no start rule: it neither fires nor uses up a pass
    expect((await request(sim.url, "GET", "/api/vm/120/status")).status).toBe(200);
    expect(sim.faults()).toEqual([expect.objectContaining({ pass: 2, times: 1 })]);
    const starts = [];
    for (const vmid of [120, 123, 121, 122])
      starts.push((await request(sim.url, "POST", `/api/vm/${vmid}/start`)).body);
    expect(starts.map((b) => (b.includes("failed to start VM") ? "failed" : "started"))).toEqual([
      "started",
      "started",
      "failed",
      "started",
    ]);
    expect(sim.faults()).toEqual([]);
    expect(sim.stats().faultsFired).toBe(1);
  });

  test("rules are validated: an unknown step or kind is a clear error", () => {
    return start().then((sim) => {
      expect(() => sim.addFault({ op: "install", step: "downloading image", kind: "fail" })).toThrow(
        /unknown step "downloading image"; known: begin, checking VMID/,
      );
      expect(() => sim.addFault({ kind: "explode" } as never)).toThrow(/invalid fault rule/);
    });
  });
});
