// Adopting an existing VM through the real engine: a VM of another OS is
// refused and nothing is installed; a VM is adopted without an install and
// then managed; an adopt whose convergence fails part way (set/cpu refused)
// is still recorded with its provider, so a later up and destroy work.
import { failureOf, newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const legacy = {
  os: "debian",
  version: "12",
  name: "legacy",
  vmid: 150,
  cpu: 2,
  memoryMb: 2048,
  diskGb: 16,
  adopt: true,
};
const seed = {
  vmid: 150,
  name: "legacy-150",
  requestedName: "legacy",
  os: "debian",
  version: "12",
  cpu: 2,
  memoryMb: 2048,
  diskGb: 16,
  running: true,
  user: "debian",
};

let fleet: Fleet;
beforeEach(async () => {
  fleet = await newFleet();
  fleet.sim.addVm(seed);
});
afterEach(() => fleet.dispose());

test("refuses to adopt a VM whose OS is not the one declared, and installs nothing", async () => {
  await fleet.setVms({ legacy: { ...legacy, os: "ubuntu", version: "24.04" } });
  expect(await failureOf(fleet.up())).toMatch(/adopt: VM legacy-150 \(150\) runs debian, not ubuntu/);
  expect(fleet.sim.vms()).toHaveLength(1);
  expect(fleet.sim.stats().installsStarted).toBe(0);
  expect(fleet.resources().legacy).toBeUndefined();
});

test("adopts an existing VM by its VMID without installing, and then manages it", async () => {
  await fleet.setVms({ legacy });
  const result = await fleet.up();
  expect(result.summary.resourceChanges).toEqual({ create: 3 }); // the stack, its identity and the adopted VM
  expect(fleet.sim.stats().installsStarted).toBe(0);
  expect(fleet.resources().legacy!.id).toBe("150");
  expect(fleet.sim.vms()).toHaveLength(1);
  expect((await fleet.preview()).changeSummary).toEqual({ same: 3 });

  await fleet.setVms({ legacy: { ...legacy, cpu: 3 } });
  await fleet.up();
  expect(fleet.sim.vm(150)!.cpu).toBe(3);
  await fleet.destroy();
  expect(fleet.sim.vms()).toEqual([]);
});

test("an adopt that fails part way is kept in state with its provider; the next up converges, destroy removes it", async () => {
  // Adopting with cpu 4 shuts the VM down, then set/cpu fails once.
  fleet.sim.addFault({ op: "setCpu", vmid: 150, kind: "fail", times: 1 });
  await fleet.setVms({ legacy: { ...legacy, cpu: 4 } });
  const message = await failureOf(fleet.up());
  expect(message).toMatch(/cpu/);

  const res = fleet.resources().legacy;
  expect(res?.id).toBe("150");
  // What the engine needs to load the provider again, and the VM as it is.
  expect(typeof res!.outputs.__provider).toBe("string");
  expect(res!.outputs).toMatchObject({ vmid: 150, vmName: "legacy-150", cpu: 2 });
  expect(res!.initErrors?.length).toBeGreaterThan(0);

  await fleet.up();
  expect(fleet.sim.vm(150)).toMatchObject({ cpu: 4, running: true });
  expect(fleet.resources().legacy!.initErrors ?? []).toEqual([]);
  await fleet.destroy();
  expect(fleet.sim.vms()).toEqual([]);
  expect(fleet.sim.stats().installsStarted).toBe(0);
});
