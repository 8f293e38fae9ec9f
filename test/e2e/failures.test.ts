// Failed installs through the real engine: every failure shape fails
// `pulumi up` with the server's words, a VM that exists is always in state
// (partially created), the next `up` replaces it (or, with
// keepIncompleteInstall, reconciles it) and destroy removes it.
// Each scenario is one test: its steps build on each other.
import { BOTH_WAYS_IN, failureOf, newFleet, orphans, type Fleet } from "./harness";

jest.setTimeout(300_000);

describe.each(BOTH_WAYS_IN)("on the %s provider", (via) => {
  let fleet: Fleet;
  beforeEach(async () => {
    fleet = await newFleet({}, { via });
  });
  afterEach(() => fleet.dispose());

  test("an error event after the VM was made: up fails with the server's words, the VM is kept as partially created, with keepIncompleteInstall the next up reconciles it, destroy removes it", async () => {
    // The SSH wait times out once: error event, close, and the VM stays behind.
    fleet.sim.addFault({ op: "install", name: "flaky", step: "waiting for ready", kind: "fail", times: 1 });
    await fleet.setVms({ flaky: { os: "ubuntu", version: "22.04", name: "flaky" } });

    const message = await failureOf(fleet.up());
    expect(message).toMatch(/waiting for ready/);
    expect(message).toMatch(/\[-\]/);

    const res = fleet.resources().flaky;
    expect(res).toBeDefined();
    const vmid = Number(res!.id);
    expect(fleet.sim.vm(vmid)).toBeDefined();
    expect(res!.initErrors?.length).toBeGreaterThan(0);
    expect(orphans(fleet)).toEqual([]);

    await fleet.setVms({ flaky: { os: "ubuntu", version: "22.04", name: "flaky", keepIncompleteInstall: true } });
    const result = await fleet.up();
    expect(result.summary.result).toBe("succeeded");
    expect(fleet.sim.vms().map((v) => v.vmid)).toEqual([vmid]);
    expect(fleet.sim.vm(vmid)!.running).toBe(true);
    expect(fleet.resources().flaky!.initErrors ?? []).toEqual([]);

    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });

  test("an install refused with a bare message (no close) fails up with the server's words and leaves nothing anywhere", async () => {
    fleet.sim.settings({ allowIps: "10.9.9.9" });
    await fleet.setVms({ refused: { os: "debian", version: "12" } });
    const message = await failureOf(fleet.up());
    expect(message).toMatch(/this IP is not allowed to perform this action/);
    expect(fleet.sim.vms()).toEqual([]);
    expect(fleet.resources()).toEqual({});
  });

  test("an install that closes without its completion mark (failed migration) fails up, keeps the VM in state, and destroy removes it", async () => {
    fleet.sim.addFault({ op: "install", name: "mover", step: "migrating VM", kind: "fail", times: 1 });
    await fleet.setVms({ mover: { os: "rockylinux", version: "9", name: "mover", node: "pve2" } });
    const message = await failureOf(fleet.up());
    expect(message).toMatch(/completion/);
    expect(orphans(fleet)).toEqual([]);
    expect(fleet.resources().mover).toBeDefined();
    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });
});
