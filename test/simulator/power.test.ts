// Per-VM operations: start/reboot/set-node streams, the text `ok` actions, the
// power-state preconditions, disabled VMs, the missing disabled file, ALLOW_IPS
// and the VMID parse, each with the server's exact status, type and bytes.
import { Clock } from "../../simulator/clock";
import { CLOSE, ev, frames, open, request, until, useSimulators } from "./helpers";

const start = useSimulators();

const TEXT = "text/plain; charset=utf-8";
const bare = (m: string): string => `data: {"message": "${m}"}\n\n`;

describe("start and reboot", () => {
  test("start of a stopped VM: starting VM, waiting for SSH, finalizing info, close", async () => {
    const sim = await start({ vms: [{ vmid: 101, os: "ubuntu" }] });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect([r.status, r.headers["content-type"], r.complete]).toEqual([200, "text/event-stream", true]);
    expect(r.body).toBe(
      [
        ev("starting VM", "success", "[+] VM starting (0.85s)"),
        ev("waiting for SSH", "success", "[+] VM is ready (35.00s)"),
        ev("finalizing", "info", "[+] VM started successfully"),
        CLOSE,
      ].join("\n\n") + "\n\n",
    );
    expect(sim.vm(101)?.status).toBe("running");
  });

  test("the 5 s pause before finalizing is a real pause: the stream waits there", async () => {
    const sim = await start({ durationsZero: true, durations: { finalizePause: 1e9 } });
    sim.addVm({ vmid: 101 });
    const s = open(sim.url, "POST", "/api/vm/101/start");
    await s.waitFor("[+] VM is ready");
    // A later request is answered while the stream still waits in its pause.
    expect((await request(sim.url, "GET", "/api/health")).body).toBe("ok");
    expect(s.text()).not.toContain("finalizing");
    s.abort();
  });

  test("simulated time is scaled by speed (the clock's sleeps)", async () => {
    jest.useFakeTimers();
    try {
      const clock = new Clock(100, new AbortController().signal);
      let done = false;
      void clock.sleep(5000).then(() => (done = true));
      jest.advanceTimersByTime(49);
      await Promise.resolve();
      expect(done).toBe(false);
      jest.advanceTimersByTime(1);
      await Promise.resolve();
      await Promise.resolve();
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  test("reboot of a running VM", async () => {
    const sim = await start({ vms: [{ vmid: 102, os: "debian", running: true }] });
    const r = await request(sim.url, "POST", "/api/vm/102/reboot");
    expect(frames(r.body)).toEqual([
      ev("rebooting VM", "success", "[+] VM rebooting (4.10s)"),
      ev("waiting for SSH", "success", "[+] VM is ready (30.00s)"),
      ev("finalizing", "info", "[+] VM rebooted successfully"),
      CLOSE,
    ]);
  });

  test("a VM without an OS tag: error event at waiting for SSH, then a bare line and no close", async () => {
    const sim = await start({ vms: [{ vmid: 103, os: "" }] });
    const r = await request(sim.url, "POST", "/api/vm/103/start");
    expect(frames(r.body)).toEqual([
      ev("starting VM", "success", "[+] VM starting (0.85s)"),
      ev("waiting for SSH", "error", "[-] failed to get VM list: OS user not found"),
      'data: {"message": "failed to start VM: [-] failed to get VM list: OS user not found"}',
    ]);
    expect(sim.vm(103)?.running).toBe(true);
  });

  test("start of a VM that does not exist passes the check and fails in qm start over ssh to no host", async () => {
    const sim = await start();
    const r = await request(sim.url, "POST", "/api/vm/999/start");
    expect([r.headers["content-type"], r.body]).toEqual([
      "text/event-stream",
      bare(
        "failed to start VM: [-] failed to start VM: exit status 255, output: " +
          "ssh: Could not resolve hostname : Name or service not known\r\n",
      ),
    ]);
  });
});

describe("preconditions and refusals", () => {
  test("start refuses a running VM, reboot a stopped one (bare lines, text/plain, no close)", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }, { vmid: 102 }] });
    const a = await request(sim.url, "POST", "/api/vm/101/start");
    expect([a.status, a.headers["content-type"], a.body]).toEqual([200, TEXT, bare("VM is running")]);
    const b = await request(sim.url, "POST", "/api/vm/102/reboot");
    expect(b.body).toBe(bare("VM is not running"));
    const c = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve2" } });
    expect(c.body).toBe(bare("VM is running"));
  });

  test("stop/shutdown need running; destroy and set/* need stopped; a missing VM reads as not running", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }, { vmid: 102 }] });
    const cases: Array<[string, object | undefined, number, string]> = [
      ["/api/vm/102/stop", undefined, 400, "VM is not running"],
      ["/api/vm/102/shutdown", undefined, 400, "VM is not running"],
      ["/api/vm/999/stop", undefined, 400, "VM is not running"],
      ["/api/vm/101/destroy", undefined, 400, "VM is running"],
      ["/api/vm/101/set/cpu", { cpu: 4 }, 400, "VM is running"],
      ["/api/vm/101/set/memory", { memory: 4096 }, 400, "VM is running"],
      ["/api/vm/101/set/disk", { disk: "10G" }, 400, "VM is running"],
    ];
    for (const [path, body, status, text] of cases) {
      const r = await request(sim.url, "POST", path, { body });
      expect([path, r.status, r.headers["content-type"], r.body]).toEqual([path, status, TEXT, text]);
    }
  });

  test("a disabled VM is refused everywhere with 400 / a bare line", async () => {
    const sim = await start({ vms: [{ vmid: 150 }], disabled: [{ vmid: 150, name: "fw" }] });
    for (const action of ["stop", "shutdown", "destroy"]) {
      const r = await request(sim.url, "POST", `/api/vm/150/${action}`);
      expect([action, r.status, r.body]).toEqual([action, 400, "this IP is not allowed to be controlled"]);
    }
    for (const action of ["start", "reboot"]) {
      const r = await request(sim.url, "POST", `/api/vm/150/${action}`);
      expect([action, r.body]).toEqual([action, bare("this IP is not allowed to be controlled")]);
    }
    expect(sim.vm(150)?.disabled).toBe(true);
  });

  test("without .go_qemu_disabled every per-VM call fails: 500 text or a bare line", async () => {
    const sim = await start({ disabled: null, vms: [{ vmid: 101, running: true }] });
    const stop = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([stop.status, stop.body]).toEqual([
      500,
      "failed to get VM list: open .go_qemu_disabled: no such file or directory",
    ]);
    const startR = await request(sim.url, "POST", "/api/vm/101/start");
    expect(startR.body).toBe(bare("failed to get VM list: open .go_qemu_disabled: no such file or directory"));
    sim.settings({ disabled: [] });
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
  });

  test("ALLOW_IPS refusals: 403 text, or bare lines (with [-] for reboot and set/node); status and list stay open", async () => {
    const sim = await start({ allowIps: "10.0.0.1,10.0.0.2", vms: [{ vmid: 101, running: true }] });
    const stop = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([stop.status, stop.headers["content-type"], stop.body]).toEqual([
      403,
      TEXT,
      "this IP is not allowed to perform this action\n",
    ]);
    expect((await request(sim.url, "POST", "/api/vm/101/start")).body).toBe(
      bare("this IP is not allowed to perform this action"),
    );
    expect((await request(sim.url, "POST", "/api/vm/101/reboot")).body).toBe(
      bare("[-] this IP is not allowed to perform this action"),
    );
    expect((await request(sim.url, "POST", "/api/vm/101/set/node")).body).toBe(
      bare("[-] this IP is not allowed to perform this action"),
    );
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    expect((await request(sim.url, "GET", "/api/vm/list")).status).toBe(200);
    const via = await request(sim.url, "POST", "/api/vm/101/stop", { headers: { "X-Forwarded-For": "10.0.0.2" } });
    expect(via.body).toBe("ok");
  });

  test("a VMID that does not parse, with each handler's own text", async () => {
    const sim = await start();
    const texts: Array<[string, number, string]> = [
      ["stop", 500, "failed to stop VM\n"],
      ["shutdown", 500, "failed to shutdown VM\n"],
      ["destroy", 500, "failed to destroy VM\n"],
      ["set/cpu", 500, "failed to destroy VM\n"],
      ["set/memory", 500, "failed to destroy VM\n"],
      ["set/disk", 500, "failed to destroy VM\n"],
    ];
    for (const [action, status, text] of texts) {
      const r = await request(sim.url, "POST", `/api/vm/web/${action}`);
      expect([action, r.status, r.body]).toEqual([action, status, text]);
    }
    expect((await request(sim.url, "POST", "/api/vm/web/start")).body).toBe(bare("failed to start VM"));
    expect((await request(sim.url, "POST", "/api/vm/web/reboot")).body).toBe(bare("[-] failed to reboot VM"));
    expect((await request(sim.url, "POST", "/api/vm/web/set/node")).body).toBe(bare("[-] failed to reboot VM"));
  });
});

describe("plain actions", () => {
  test("stop is immediate; shutdown answers ok only once the guest is off, and status then says stopped", async () => {
    const sim = await start({
      speed: 100,
      guestShutdownMs: 30_000,
      vms: [
        { vmid: 101, running: true },
        { vmid: 102, running: true },
      ],
    });
    const stop = await request(sim.url, "POST", "/api/vm/101/stop");
    expect([stop.status, stop.headers["content-type"], stop.body]).toEqual([200, TEXT, "ok"]);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("stopped");

    const down = open(sim.url, "POST", "/api/vm/102/shutdown");
    await until(() => sim.vm(102)?.shuttingDown === true);
    // While qm shutdown waits for the guest, the VM runs and the request has no answer.
    expect((await request(sim.url, "GET", "/api/vm/102/status")).body).toBe("running");
    expect(down.text()).toBe("");
    const answer = await down.done;
    expect([answer.status, answer.body]).toEqual([200, "ok"]);
    expect(sim.vm(102)).toMatchObject({ status: "stopped", shuttingDown: false });
    expect((await request(sim.url, "GET", "/api/vm/102/status")).body).toBe("stopped");
  });

  test("a hard stop during a waiting shutdown ends the wait: both answer ok, the VM is stopped", async () => {
    const sim = await start({ guestShutdownMs: 1e9, vms: [{ vmid: 102, running: true }] });
    const down = open(sim.url, "POST", "/api/vm/102/shutdown");
    await until(() => sim.vm(102)?.shuttingDown === true);
    expect((await request(sim.url, "POST", "/api/vm/102/stop")).body).toBe("ok");
    expect((await down.done).body).toBe("ok");
    expect(sim.vm(102)).toMatchObject({ status: "stopped", shuttingDown: false });
  });

  test("a client that gives up on a shutdown does not stop it: the guest still powers off", async () => {
    const sim = await start({ guestShutdownMs: 20_000, vms: [{ vmid: 102, running: true }] });
    const down = open(sim.url, "POST", "/api/vm/102/shutdown");
    await until(() => sim.vm(102)?.shuttingDown === true);
    down.abort();
    await until(() => sim.vm(102)?.status === "stopped");
    expect(sim.vm(102)?.shuttingDown).toBe(false);
  });

  test("the guest shutdown time can change at run time", async () => {
    const sim = await start({ guestShutdownMs: 1e9, vms: [{ vmid: 102, running: true }] });
    sim.settings({ guestShutdownMs: 0 });
    expect(sim.config.durations.shutdownGrace).toBe(0);
    expect((await request(sim.url, "POST", "/api/vm/102/shutdown")).body).toBe("ok");
    expect(sim.vm(102)?.status).toBe("stopped");
  });

  test("guestShutdownMs sets the guest's time; durationsZero zeroes only the default", async () => {
    const sim = await start({ durationsZero: true, guestShutdownMs: 5_000, vms: [{ vmid: 102, running: true }] });
    expect(sim.config.durations.shutdownGrace).toBe(5_000);
    const fast = await start({ durationsZero: true, vms: [{ vmid: 102, running: true }] });
    expect(fast.config.durations.shutdownGrace).toBe(0);
    expect((await request(fast.url, "POST", "/api/vm/102/shutdown")).body).toBe("ok");
    expect(fast.vm(102)?.status).toBe("stopped");
    expect((await request(sim.url, "POST", "/api/vm/102/shutdown")).body).toBe("ok");
  });

  test("destroy removes a stopped VM; a missing one is a 500 with qm's output", async () => {
    const sim = await start({ vms: [{ vmid: 101 }] });
    expect((await request(sim.url, "POST", "/api/vm/101/destroy")).body).toBe("ok");
    expect(sim.vms()).toEqual([]);
    const missing = await request(sim.url, "POST", "/api/vm/101/destroy");
    expect([missing.status, missing.body]).toEqual([
      500,
      "failed to destroy VM: failed to destroy VM: exit status 255, output: " +
        "ssh: Could not resolve hostname : Name or service not known\r\n\n",
    ]);
  });

  test("set/cpu and set/memory apply; out-of-range bodies are 400 with validator texts", async () => {
    const sim = await start({ vms: [{ vmid: 101, cpu: 2, memoryMb: 2048 }] });
    expect((await request(sim.url, "POST", "/api/vm/101/set/cpu", { body: { cpu: 4 } })).body).toBe("ok");
    expect((await request(sim.url, "POST", "/api/vm/101/set/memory", { body: { memory: 4096 } })).body).toBe("ok");
    expect(sim.vm(101)).toMatchObject({ cpu: 4, memoryMb: 4096 });
    const bad: Array<[string, object | string, string]> = [
      ["set/cpu", { cpu: 0 }, "Key: 'reqBody.CPU' Error:Field validation for 'CPU' failed on the 'required' tag"],
      ["set/cpu", { cpu: 33 }, "Key: 'reqBody.CPU' Error:Field validation for 'CPU' failed on the 'max' tag"],
      ["set/cpu", { cpu: -1 }, "Key: 'reqBody.CPU' Error:Field validation for 'CPU' failed on the 'min' tag"],
      [
        "set/memory",
        { memory: 256 },
        "Key: 'reqBody.Memory' Error:Field validation for 'Memory' failed on the 'min' tag",
      ],
      ["set/memory", { memory: "4G" }, "json: cannot unmarshal string into Go struct field reqBody.memory of type int"],
      ["set/cpu", "", "EOF"],
    ];
    for (const [action, body, text] of bad) {
      const r = await request(sim.url, "POST", `/api/vm/101/${action}`, { body });
      expect([action, r.status, r.body]).toEqual([action, 400, `invalid request body: ${text}`]);
    }
    expect(sim.vm(101)).toMatchObject({ cpu: 4, memoryMb: 4096 });
  });

  test("set/disk grows by the given amount; a bad size is qm's 500", async () => {
    const sim = await start({ vms: [{ vmid: 101, diskGb: 16 }] });
    expect((await request(sim.url, "POST", "/api/vm/101/set/disk", { body: { disk: "10G" } })).body).toBe("ok");
    expect(sim.vm(101)?.diskGb).toBe(26);
    expect((await request(sim.url, "POST", "/api/vm/101/set/disk", { body: { disk: "512M" } })).body).toBe("ok");
    expect(sim.vm(101)?.diskGb).toBe(26);
    const list = JSON.parse((await request(sim.url, "GET", "/api/vm/list")).body);
    expect(list.list[0].disk).toBe(26);
    const bad = await request(sim.url, "POST", "/api/vm/101/set/disk", { body: { disk: "+10G" } });
    expect([bad.status, bad.body]).toEqual([
      500,
      "failed to append disk: failed to append disk: exit status 255, output: 400 Parameter verification failed.\n" +
        "size: value does not match the regex pattern\nqm disk resize <vmid> <disk> <size> [OPTIONS]\n\n",
    ]);
  });
});

describe("set/node", () => {
  test("streams qm migrate's output as migrating/processing lines, then close; the VM moves", async () => {
    const sim = await start({ vms: [{ vmid: 101, node: "pve1" }] });
    const r = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve2" } });
    const f = frames(r.body);
    expect(r.headers["content-type"]).toBe("text/event-stream");
    expect(f.at(-1)).toBe(CLOSE);
    expect(
      f
        .slice(0, -1)
        .every((x) => x.startsWith('data: {"step":"migrating","status":"processing","message":"  2025-01-01 ')),
    ).toBe(true);
    expect(f[0]).toBe(
      ev("migrating", "processing", "  2025-01-01 00:00:00 starting migration of VM 101 to node 'pve2' (192.168.0.12)"),
    );
    expect(f.at(-2)).toBe(
      ev("migrating", "processing", "  2025-01-01 00:00:12 migration finished successfully (duration 00:00:12)"),
    );
    expect(f.some((x) => x.includes('received "rpool/data/vm-101-disk-0@__migration__"'))).toBe(true);
    expect(sim.vm(101)?.node).toBe("pve2");
  });

  test("to the node it is on: Proxmox refuses, the output is streamed and a bare line ends it", async () => {
    const sim = await start({ vms: [{ vmid: 101, node: "pve1" }] });
    const r = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve1" } });
    expect(frames(r.body)).toEqual([
      ev("migrating", "processing", "  400 Parameter verification failed."),
      ev("migrating", "processing", "  target: target is local node."),
      ev("migrating", "processing", "  qm migrate <vmid> <target> [OPTIONS]"),
      'data: {"message": "[-] failed to migrate VM: [-] failed to perform migrate: exit status 255"}',
    ]);
    const unknown = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve9" } });
    expect(frames(unknown.body)[0]).toBe(ev("migrating", "processing", "  no such cluster node 'pve9'"));
    expect(sim.vm(101)?.node).toBe("pve1");
  });

  test("a body that does not bind: a 400 text line and then an SSE-style line in the same response", async () => {
    const sim = await start({ vms: [{ vmid: 101 }] });
    const r = await request(sim.url, "POST", "/api/vm/101/set/node", { body: {} });
    const err = "Key: 'reqBody.Node' Error:Field validation for 'Node' failed on the 'required' tag";
    expect([r.status, r.headers["content-type"], r.body]).toEqual([
      400,
      TEXT,
      `invalid request body: ${err}data: {"message": "[-] invalid request body: ${err}"}\n\n`,
    ]);
  });
});
