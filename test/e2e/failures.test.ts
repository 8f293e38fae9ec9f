// Failed installs through the real engine: every failure shape fails
// `pulumi up` with the server's words, a VM that exists is always in state
// (partially created), the next `up` replaces it (or, with
// keepIncompleteInstall, reconciles it) and destroy removes it.
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

async function upError(fleet: Fleet): Promise<string> {
  try {
    await fleet.up();
  } catch (err) {
    return String(err);
  }
  throw new Error("pulumi up succeeded, expected it to fail");
}

/** VMs on the simulator that are not in Pulumi's state. */
function orphans(fleet: Fleet): number[] {
  const inState = new Set(Object.values(fleet.resources()).map((r) => Number(r.id)));
  return fleet.sim
    .vms()
    .map((v) => v.vmid)
    .filter((vmid) => !inState.has(vmid));
}

describe("an install that fails with an error event after the VM was made", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
    // The SSH wait times out once: error event, close, and the VM stays behind.
    fleet.sim.addFault({ op: "install", name: "flaky", step: "waiting for ready", kind: "fail", times: 1 });
    await fleet.setVms({ flaky: { os: "ubuntu", version: "22.04", name: "flaky" } });
  });
  afterAll(() => fleet.dispose());

  it("fails `pulumi up` with the server's message", async () => {
    const message = await upError(fleet);
    expect(message).toMatch(/waiting for ready/);
    expect(message).toMatch(/\[-\]/);
  });

  it("keeps the VM in state as partially created, with no orphan", () => {
    const res = fleet.resources().flaky;
    expect(res).toBeDefined();
    expect(fleet.sim.vm(Number(res!.id))).toBeDefined();
    expect((res as unknown as { initErrors?: string[] }).initErrors?.length).toBeGreaterThan(0);
    expect(orphans(fleet)).toEqual([]);
  });

  it("with keepIncompleteInstall, reconciles it on the next up, without a new VM", async () => {
    const vmid = Number(fleet.resources().flaky!.id);
    await fleet.setVms({ flaky: { os: "ubuntu", version: "22.04", name: "flaky", keepIncompleteInstall: true } });
    const result = await fleet.up();
    expect(result.summary.result).toBe("succeeded");
    expect(fleet.sim.vms().map((v) => v.vmid)).toEqual([vmid]);
    expect(fleet.sim.vm(vmid)!.running).toBe(true);
    expect((fleet.resources().flaky as unknown as { initErrors?: string[] }).initErrors ?? []).toEqual([]);
  });

  it("destroy removes it", async () => {
    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });
});

describe("an install refused with a bare message (no close)", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
    fleet.sim.settings({ allowIps: "10.9.9.9" });
    await fleet.setVms({ refused: { os: "debian", version: "12" } });
  });
  afterAll(() => fleet.dispose());

  it("fails `pulumi up` with the server's words and leaves nothing anywhere", async () => {
    const message = await upError(fleet);
    expect(message).toMatch(/this IP is not allowed to perform this action/);
    expect(fleet.sim.vms()).toEqual([]);
    expect(fleet.resources()).toEqual({});
  });
});

describe("an install that closes without its completion mark (failed migration)", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
    fleet.sim.addFault({ op: "install", name: "mover", step: "migrating VM", kind: "fail", times: 1 });
    await fleet.setVms({ mover: { os: "rockylinux", version: "9", name: "mover", node: "pve2" } });
  });
  afterAll(() => fleet.dispose());

  it("fails `pulumi up`, keeps the VM in state, and a later destroy removes it", async () => {
    const message = await upError(fleet);
    expect(message).toMatch(/completion/);
    expect(orphans(fleet)).toEqual([]);
    expect(fleet.resources().mover).toBeDefined();
    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });
});
