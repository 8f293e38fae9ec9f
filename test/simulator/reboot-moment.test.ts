// qm reboot's stopped moment: the guest shuts down (the VM still reads
// running while qm reboot runs), qm reboot returns, the VM reads stopped for
// durations.rebootStopped until Proxmox starts it again. Every check that
// reads the VM's state sees the moment as the server's would: status, list,
// the power-state refusals, the SSH wait.
import { CLOSE, ev, frames, open, request, until, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const bare = (m: string): string => `data: {"message": "${m}"}\n\n`;
const LONG = { qmReboot: 100_000, rebootStopped: 200_000, finalizePause: 0 };
/** Slow enough that the requests made inside the moment fit in it on a loaded machine (200 s: 2 s here). */
const SLOW = 100;
/** VM 101 running, for a reboot whose SSH wait gives up 50 s after the moment would have ended. */
const inMoment = () =>
  start({ speed: SLOW, durations: { ...LONG, sshTimeout: 250_000 }, vms: [{ vmid: 101, running: true }] });

interface Listed {
  vmid: number;
  running: boolean;
  memory_used: number;
}
const listed = async (url: string): Promise<Listed[]> =>
  (JSON.parse((await request(url, "GET", "/api/vm/list")).body) as { list: Listed[] }).list;

/** Runs `during` while watching the VM's status at every turn of the event loop; returns what was seen. */
async function watch(read: () => string | undefined, during: Promise<unknown>): Promise<Set<string | undefined>> {
  const seen = new Set<string | undefined>();
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    seen.add(read());
    await new Promise((r) => setImmediate(r));
  }
  return seen;
}

describe("the reboot operation", () => {
  test("running while qm reboot runs, stopped after it returns, running again when SSH answers", async () => {
    const sim = await start({ speed: SLOW, durations: LONG, vms: [{ vmid: 101, running: true, memoryMb: 8192 }] });
    const s = open(sim.url, "POST", "/api/vm/101/reboot");
    await until(() => sim.stats().requests.reboot === 1);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    expect(s.text()).toBe("");

    await s.waitFor("[+] VM rebooting");
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("stopped");
    expect(await listed(sim.url)).toEqual([expect.objectContaining({ vmid: 101, running: false, memory_used: 0 })]);
    // The power-state checks read the list: a VM that is not running.
    const shutdown = await request(sim.url, "POST", "/api/vm/101/shutdown");
    expect([shutdown.status, shutdown.body]).toEqual([400, "VM is not running"]);
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("VM is not running");
    expect((await request(sim.url, "POST", "/api/vm/101/reboot")).body).toBe(bare("VM is not running"));

    const r = await s.done;
    expect(frames(r.body)).toEqual([
      ev("rebooting VM", "success", "[+] VM rebooting (100.00s)"),
      // SSH cannot answer before the VM runs again: the wait lasts the whole moment.
      ev("waiting for SSH", "success", "[+] VM is ready (200.00s)"),
      ev("finalizing", "info", "[+] VM rebooted successfully"),
      CLOSE,
    ]);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    expect((await listed(sim.url))[0]?.running).toBe(true);
  });

  test.each([
    [undefined, true],
    [0, false],
  ])("rebootStopped %p: the VM is seen stopped: %p", async (rebootStopped, seenStopped) => {
    const durations = rebootStopped === undefined ? {} : { rebootStopped };
    const sim = await start({ durations, vms: [{ vmid: 101, running: true }] });
    const seen = await watch(() => sim.vm(101)?.status, request(sim.url, "POST", "/api/vm/101/reboot"));
    expect(seen.has("stopped")).toBe(seenStopped);
    expect(seen.has("running")).toBe(true);
    expect(sim.vm(101)?.status).toBe("running");
  });

  test("a start in the moment passes the check and runs the VM; Proxmox's restart is then off", async () => {
    const sim = await inMoment();
    const s = open(sim.url, "POST", "/api/vm/101/reboot");
    await s.waitFor("[+] VM rebooting");
    const started = await request(sim.url, "POST", "/api/vm/101/start");
    expect(frames(started.body)).toEqual([
      ev("starting VM", "success", "[+] VM starting (0.85s)"),
      ev("waiting for SSH", "success", "[+] VM is ready (35.00s)"),
      ev("finalizing", "info", "[+] VM started successfully"),
      CLOSE,
    ]);
    // Stopped again well within the moment: no late restart brings the VM back.
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
    const r = await s.done;
    expect(frames(r.body).at(-2)).toBe(
      ev("waiting for SSH", "error", "[-] failed to connect to VM via SSH: [-] SSH timeout"),
    );
    await sim.idle();
    expect(sim.vm(101)?.status).toBe("stopped");
  });

  test("a destroy in the moment removes the VM for good; the reboot's SSH wait times out", async () => {
    const sim = await inMoment();
    const s = open(sim.url, "POST", "/api/vm/101/reboot");
    await s.waitFor("[+] VM rebooting");
    expect((await request(sim.url, "POST", "/api/vm/101/destroy")).body).toBe("ok");
    const r = await s.done;
    expect(frames(r.body).slice(-2)).toEqual([
      ev("waiting for SSH", "error", "[-] failed to connect to VM via SSH: [-] SSH timeout"),
      CLOSE,
    ]);
    await sim.idle();
    expect(sim.vm(101)).toBeUndefined();
  });

  test("drift in the moment wins over the restart", async () => {
    const sim = await inMoment();
    const s = open(sim.url, "POST", "/api/vm/101/reboot");
    await s.waitFor("[+] VM rebooting");
    sim.mutateVm(101, { status: "stopped" });
    await s.done;
    await sim.idle();
    expect(sim.vm(101)?.status).toBe("stopped");
  });

  test("the restart is Proxmox's: a server restart in the moment does not keep the VM stopped", async () => {
    const sim = await start({ durations: { ...LONG, rebootStopped: 1e9 }, vms: [{ vmid: 101, running: true }] });
    const s = open(sim.url, "POST", "/api/vm/101/reboot");
    await s.waitFor("[+] VM rebooting");
    expect(sim.vm(101)?.status).toBe("stopped");
    await sim.restart();
    expect((await s.done).complete).toBe(false);
    expect(sim.vm(101)?.status).toBe("running");
  });
});

describe("the install's reboot after SSH initialization", () => {
  test("the VM runs through SSH initialization, reads stopped after qm reboot, then runs; the texts stay", async () => {
    const sim = await start({
      speed: SLOW,
      sshKey: true,
      imageCache: ["ubuntu/24.04"],
      durations: { rebootStopped: 100_000 },
    });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });
    await s.waitFor("[*] SSH initialization");
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    await s.waitFor("[+] VM rebooting");
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("stopped");
    expect((await listed(sim.url))[0]?.running).toBe(false);
    const r = await s.done;
    expect(frames(r.body).slice(-7, -5)).toEqual([
      ev("VM initialization > rebooting VM", "processing", "[+] VM rebooting"),
      // "ready" is timed from the qm reboot call alone, as the server does.
      ev("VM initialization > finalizing", "success", "[+] VM is ready (4.10s)"),
    ]);
    expect(r.body).toContain("[+] VM installation completed in 248.22s");
    expect(sim.vm(101)?.running).toBe(true);
  });
});
