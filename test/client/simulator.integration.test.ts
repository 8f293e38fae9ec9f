// The client against the go-pve-qemu simulator (simulator/, speed 1000): every
// endpoint, and each failure shape of the wire doc produced by the simulator's
// own fault injection and settings rather than by recorded bytes.
import { GoPveQemuClient } from "../../provider/client";
import { HttpStatusError, OperationFailedError, ResponseShapeError } from "../../provider/client/errors";
import type { InstallRequest } from "../../provider/client/schemas";
import type { InstallFacts, OperationEvent } from "../../provider/client/stream/types";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { failure } from "./helpers/failure";

let sim: SimulatorHandle;
let client: GoPveQemuClient;

beforeEach(async () => {
  sim = await startSimulator({ speed: 1000 });
  client = new GoPveQemuClient({ endpoint: sim.url });
});
afterEach(async () => {
  await client.close();
  await sim.close();
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection");
}

const UBUNTU: InstallRequest = { os: "ubuntu", version: "24.04" };

async function waitStatus(vmid: number, want: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await client.status(vmid)) === want) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`VM ${vmid} never became ${want}`);
}

describe("every endpoint", () => {
  test("health, install, list, status, shutdown, set cpu/memory/disk, migrate, start, reboot, stop, destroy", async () => {
    await expect(client.health()).resolves.toBe("ok");

    const facts: InstallFacts[] = [];
    const events: OperationEvent[] = [];
    const installed = await client.install(
      { ...UBUNTU, name: "web", cpu: 2, ram: 2048, disk: "20G", user: "deploy" },
      { onFacts: (f) => facts.push(f), onEvent: (e) => events.push(e) },
    );
    const vmid = installed.facts.vmid;
    expect(installed.facts).toMatchObject({
      autoAssigned: true,
      realName: `web-${vmid}`,
      user: "deploy",
      vmCreated: true,
      completed: true,
    });
    expect(installed.facts.ip).toMatch(new RegExp(`^192\\.168\\.0\\.${vmid}$`));
    // a fresh simulated server has no SSH key yet: the recoverable error, reported as a warning
    expect(installed.warnings).toEqual([
      {
        step: "SSH preparation > checking SSH key",
        message: "[-] failed to check user SSH key: failed to find user SSH public key",
      },
    ]);
    expect(facts[0]!.vmid).toBe(vmid);
    expect(events.at(-1)).toEqual({ kind: "close" });

    const list = await client.list();
    expect(list.vms).toEqual([
      expect.objectContaining({ vmid, name: `web-${vmid}`, os: "ubuntu", running: true, cpu: 2, memory: 2, disk: 20 }),
    ]);
    expect(list.nodes.map((n) => n.node)).toEqual(["pve1", "pve2"]);
    await expect(client.status(vmid)).resolves.toBe("running");

    await client.shutdown(vmid);
    await waitStatus(vmid, "stopped");
    await client.setCpu(vmid, 4);
    await client.setMemory(vmid, 4096);
    await client.growDisk(vmid, 10);
    await expect(client.migrate(vmid, "pve2")).resolves.toMatchObject({ kind: "migrate", warnings: [] });
    expect((await client.list()).vms[0]).toMatchObject({ node: "pve2", cpu: 4, memory: 4, disk: 30, running: false });
    // qm status is node-local: the server cannot tell the state of a VM on another node.
    await expect(client.status(vmid)).rejects.toMatchObject({
      status: 500,
      serverMessage: "failed to get VM status: exit status 2",
    });
    await expect(client.migrate(vmid, "pve1")).resolves.toMatchObject({ kind: "migrate" });

    await expect(client.start(vmid)).resolves.toMatchObject({ kind: "start" });
    await expect(client.status(vmid)).resolves.toBe("running");
    await expect(client.reboot(vmid)).resolves.toMatchObject({ kind: "reboot" });
    await client.stop(vmid);
    await waitStatus(vmid, "stopped");
    await client.destroy(vmid);
    expect((await client.list()).vms).toEqual([]);
    expect(sim.vm(vmid)).toBeUndefined();
  });

  test("install with a given VMID, clamped sizes and a target node", async () => {
    const result = await client.install({ ...UBUNTU, id: 150, cpu: 64, ram: 65536, disk: "100G", node: "pve2" });
    expect(result.facts).toMatchObject({
      vmid: 150,
      autoAssigned: false,
      realName: "150",
      ip: "192.168.0.150",
      cpu: 32,
      memoryMb: 32768,
      diskGb: 64,
    });
    expect(sim.vm(150)).toMatchObject({ node: "pve2" });
  });

  test("a second install on a server that has a key: no warning", async () => {
    await client.install(UBUNTU);
    const second = await client.install(UBUNTU);
    expect(second.warnings).toEqual([]);
  });
});

describe("failure shapes", () => {
  test("1. error event, then close: a failed step (VMID race at VM creation: no VM of ours exists)", async () => {
    sim.addFault({
      op: "install",
      step: "creating VM",
      kind: "fail",
      detail: "unable to create VM 100 - config file already exists",
    });
    const facts: InstallFacts[] = [];
    const err = await failure(client.install(UBUNTU, { onFacts: (f) => facts.push(f) }));
    // The server picked the VMID: the error names the one the stream revealed.
    const picked = facts.at(-1)!.vmid!;
    expect(picked).toBeGreaterThanOrEqual(100);
    expect(err).toMatchObject({ shape: "error-event", step: "VM creation > creating VM", vmid: picked });
    expect(err.serverMessage).toContain("[-] failed to create VM");
    expect(err.facts).toMatchObject({ vmid: picked, vmCreated: false, completed: false });
  });

  test("1. two installs started together pick the same VMID; the second fails at VM creation", async () => {
    // One free candidate left: both probes answer with it (the race the server's probing keeps).
    await client.close();
    await sim.close();
    sim = await startSimulator({ speed: 1000, assignIpStart: 140, assignIpEnd: 140 });
    client = new GoPveQemuClient({ endpoint: sim.url });
    sim.settings({ sshKey: true }); // (on a fresh server both would also race to create the key)
    const [a, b] = await Promise.allSettled([
      client.install({ ...UBUNTU, name: "a" }),
      client.install({ ...UBUNTU, name: "b" }),
    ]);
    const outcomes = [a, b];
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(1);
    const err = failed[0]!.reason as OperationFailedError;
    expect(err).toBeInstanceOf(OperationFailedError);
    expect(err).toMatchObject({ shape: "error-event", step: "VM creation > creating VM" });
    expect(err.facts).toMatchObject({ vmid: 140, vmCreated: false });
  });

  test("1. SSH wait timeout after creation: error event, the VM exists", async () => {
    sim.addFault({ op: "install", step: "waiting for ready", kind: "fail" });
    const err = await failure(client.install(UBUNTU));
    expect(err).toMatchObject({ shape: "error-event", step: "VM initialization > waiting for ready" });
    expect(err.serverMessage).toMatch(/failed to connect to VM via SSH/);
    expect(err.facts).toMatchObject({ vmCreated: true, completed: false });
    expect(sim.vm(err.facts!.vmid!)).toBeDefined();
  });

  test("1. SSH wait timeout in start and reboot: error event, then close", async () => {
    sim.addVm({ vmid: 127, running: false });
    sim.addFault({ op: ["start", "reboot"], step: "waiting for SSH", kind: "fail" });
    const err = await failure(client.start(127));
    expect(err).toMatchObject({
      shape: "error-event",
      step: "waiting for SSH",
      serverMessage: "[-] failed to connect to VM via SSH: [-] SSH timeout",
    });
    expect(await failure(client.reboot(127))).toMatchObject({ shape: "error-event", step: "waiting for SSH" });
  });

  test("1. the SSH-key error without its recovery is a failure", async () => {
    sim.addFault({ op: "install", step: "creating SSH key", kind: "fail" });
    const err = await failure(client.install(UBUNTU));
    expect(err).toMatchObject({ shape: "error-event", step: "SSH preparation > creating SSH key", warnings: [] });
  });

  test("1. an unsupported version fails as an error event at getting OS image", async () => {
    const err = await failure(client.install({ os: "ubuntu", version: "18.04" }));
    expect(err).toMatchObject({ shape: "error-event", step: "OS preparation > getting OS image" });
  });

  test("2. bare message, no close: IP refused", async () => {
    sim.settings({ allowIps: "10.9.9.9" });
    const err = await failure(client.install(UBUNTU));
    expect(err).toMatchObject({
      shape: "bare-message",
      serverMessage: "this IP is not allowed to perform this action",
    });
  });

  test("2. bare message: the VM is in the wrong power state", async () => {
    sim.addVm({ vmid: 120, running: true });
    sim.addVm({ vmid: 121, running: false });
    expect(await failure(client.start(120))).toMatchObject({
      shape: "bare-message",
      serverMessage: "VM is running",
      vmid: 120,
    });
    expect(await failure(client.reboot(121))).toMatchObject({
      shape: "bare-message",
      serverMessage: "VM is not running",
    });
    expect(await failure(client.migrate(120, "pve2"))).toMatchObject({
      shape: "bare-message",
      serverMessage: "VM is running",
    });
  });

  test("2. bare message: qm start / qm migrate failed", async () => {
    sim.addVm({ vmid: 122, running: false });
    sim.addFault({ op: "start", step: "starting VM", kind: "fail", detail: "exit status 255" });
    const err = await failure(client.start(122));
    expect(err).toMatchObject({
      shape: "bare-message",
      serverMessage: "failed to start VM: [-] failed to start VM: exit status 255",
    });
    sim.addFault({ op: "setNode", step: "migrating", kind: "fail" });
    const mig = await failure(client.migrate(122, "pve2"));
    expect(mig).toMatchObject({ shape: "bare-message", step: "migrating" });
    expect(mig.serverMessage).toMatch(/^\[-\] failed to migrate VM/);
    expect(mig.tail.length).toBeGreaterThan(1);
  });

  test("2. a server without its .go_qemu_disabled file: named plainly", async () => {
    sim.addVm({ vmid: 123, running: false });
    sim.settings({ disabled: null });
    expect((await failure(client.start(123))).serverMessage).toMatch(/failed to get VM list/);
    const err = await rejection(client.stop(123));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 500 });
    expect((err as HttpStatusError).serverMessage).toMatch(/failed to get VM list/);
  });

  test("3. close without the completion mark: a failed migration inside install", async () => {
    sim.addFault({ op: "install", step: "migrating VM", kind: "fail" });
    const err = await failure(client.install({ ...UBUNTU, node: "pve2" }));
    expect(err).toMatchObject({ shape: "no-completion", step: "migrating" });
    expect(err.facts).toMatchObject({ vmCreated: true, completed: false });
  });

  test("3. close without the completion mark: a failed qm reboot inside install", async () => {
    sim.addFault({ op: "install", step: "rebooting VM", kind: "fail" });
    const err = await failure(client.install(UBUNTU));
    expect(err.shape).toBe("no-completion");
    expect(err.facts).toMatchObject({ vmCreated: true, completed: false });
  });

  test("4. the connection drops: connection-lost; the server carries on", async () => {
    sim.addFault({ op: "install", step: "importing disk image", kind: "drop" });
    const err = await failure(client.install({ ...UBUNTU, name: "dropped" }));
    expect(err).toMatchObject({ shape: "connection-lost" });
    expect(err.facts).toMatchObject({ vmCreated: true });
    await sim.idle();
    expect(sim.vm(err.facts!.vmid!)).toBeDefined();
  });

  test("4. the stream goes silent: idle-timeout closes it", async () => {
    sim.addVm({ vmid: 124, running: false });
    sim.addFault({ op: "start", step: "waiting for SSH", kind: "stall" });
    const err = await failure(client.start(124, { idleTimeoutMs: 300 }));
    expect(err).toMatchObject({ shape: "idle-timeout", vmid: 124 });
  });

  test("4. a long silence within the idle limit is tolerated", async () => {
    sim.addVm({ vmid: 125, running: false });
    sim.addFault({ op: "start", step: "waiting for SSH", kind: "delay", ms: 200_000 }); // 200 ms at speed 1000
    await expect(client.start(125, { idleTimeoutMs: 1000 })).resolves.toMatchObject({ kind: "start" });
  });

  test("4. overall timeout", async () => {
    sim.addFault({ op: "install", step: "downloading OS image", kind: "delay", ms: 2_000_000 });
    const err = await failure(client.install(UBUNTU, { overallTimeoutMs: 300 }));
    expect(err.shape).toBe("overall-timeout");
  });

  test("abort mid-install: cancelled at once, the VMID known, the server carries on", async () => {
    const ac = new AbortController();
    let vmid: number | undefined;
    const p = client.install(UBUNTU, {
      signal: ac.signal,
      onFacts: (f) => {
        if (f.vmid !== undefined && vmid === undefined) {
          vmid = f.vmid;
          ac.abort();
        }
      },
    });
    const err = await failure(p);
    expect(err).toMatchObject({ shape: "aborted", vmid });
    await sim.idle();
    expect(sim.vm(vmid!)).toBeDefined();
  });

  test("5. non-200 answers: a body that does not bind, a proxy error, a refusal", async () => {
    const bad = await rejection(client.install({ os: "windows", version: "11" } as unknown as InstallRequest));
    expect(bad).toBeInstanceOf(HttpStatusError);
    expect(bad).toMatchObject({ status: 400 });
    expect((bad as HttpStatusError).serverMessage).toMatch(/^please check your input/);

    sim.addFault({ op: "install", kind: "http", status: 502, body: "Bad Gateway" });
    expect(await rejection(client.install(UBUNTU))).toMatchObject({ status: 502, serverMessage: "Bad Gateway" });

    sim.settings({ allowIps: "10.9.9.9" });
    sim.addVm({ vmid: 126, running: true });
    expect(await rejection(client.stop(126))).toMatchObject({ status: 403 });
  });
});

describe("plain endpoint refusals carry the server's words", () => {
  test("status of a VM that does not exist", async () => {
    const err = await rejection(client.status(777));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 500, vmid: 777 });
    expect((err as HttpStatusError).serverMessage).toMatch(/failed to get VM status/);
  });

  test("changing a running VM, controlling a disabled one", async () => {
    sim.addVm({ vmid: 130, running: true });
    const running = await rejection(client.setCpu(130, 4));
    expect(running).toBeInstanceOf(HttpStatusError);
    expect((running as HttpStatusError).serverMessage).toMatch(/VM is running/);

    sim.settings({ disabled: [{ vmid: 131, name: "legacy" }] });
    const disabled = await rejection(client.destroy(131));
    expect((disabled as HttpStatusError).serverMessage).toMatch(/this IP is not allowed to be controlled/);
    const listed = (await client.list()).vms.find((v) => v.vmid === 131);
    expect(listed).toMatchObject({ node: "-", os: "-" });
  });

  test("out-of-range values are the server's 400", async () => {
    sim.addVm({ vmid: 132, running: false });
    const err = await rejection(client.setCpu(132, 99));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status: 400 });
  });

  test("an answer that is not JSON where JSON is due", async () => {
    sim.addFault({ op: "list", kind: "http", status: 200, body: "<html>login</html>", contentType: "text/html" });
    expect(await rejection(client.list())).toBeInstanceOf(ResponseShapeError);
  });
});
