// Changes through the real engine: resizes preview as updates and apply in
// the server's order; an os change previews as a replace; refresh sees drift
// and deletion; import adopts an existing VM by VMID.
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const base = { os: "ubuntu", version: "24.04", name: "app", vmid: 130, cpu: 2, memoryMb: 2048, diskGb: 20 };

describe("updates", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
    await fleet.setVms({ app: base });
    await fleet.up();
  });
  afterAll(() => fleet.dispose());

  it("previews a cpu/memory/disk change as an update", async () => {
    await fleet.setVms({ app: { ...base, cpu: 4, memoryMb: 4096, diskGb: 30 } });
    const preview = await fleet.preview();
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    expect(preview.changeSummary.replace).toBeUndefined();
  });

  it("applies it through shutdown, set and start", async () => {
    const result = await fleet.up();
    expect(result.summary.resourceChanges).toMatchObject({ update: 1 });
    const vm = fleet.sim.vm(130)!;
    expect({ cpu: vm.cpu, memoryMb: vm.memoryMb, diskGb: vm.diskGb, running: vm.running }).toEqual({
      cpu: 4,
      memoryMb: 4096,
      diskGb: 30,
      running: true,
    });
    const lines = fleet.diagnosticsFor("app").join("\n");
    const order = [/shut down/, /set cpu 2 -> 4/, /set memory 2048 -> 4096/, /grow disk by 10 GiB/, /start \(/].map(
      (re) => lines.search(re),
    );
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("previews an os change as a replace", async () => {
    await fleet.setVms({ app: { ...base, cpu: 4, memoryMb: 4096, diskGb: 30, os: "debian", version: "12" } });
    const preview = await fleet.preview();
    expect(preview.changeSummary).toMatchObject({ replace: 1 });
    await fleet.setVms({ app: { ...base, cpu: 4, memoryMb: 4096, diskGb: 30 } });
  });

  it("refresh sees drift made behind Pulumi's back, and the next up repairs it", async () => {
    fleet.sim.mutateVm(130, { cpu: 8, running: false, status: "stopped" });
    await fleet.refresh();
    const out = fleet.resources().app!.outputs;
    expect(out.cpu).toBe(8);
    expect(out.running).toBe(false);
    const preview = await fleet.preview();
    expect(preview.changeSummary).toMatchObject({ update: 1 });
    await fleet.up();
    expect(fleet.sim.vm(130)).toMatchObject({ cpu: 4, running: true });
  });

  it("refresh drops a VM deleted behind Pulumi's back", async () => {
    fleet.sim.removeVm(130);
    await fleet.refresh();
    expect(fleet.resources().app).toBeUndefined();
  });
});

describe("adopting an existing VM (import by VMID)", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
  });
  afterAll(() => fleet.dispose());

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

  it("refuses to adopt a VM whose OS is not the one declared, and installs nothing", async () => {
    fleet.sim.addVm({
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
    });
    await fleet.setVms({ legacy: { ...legacy, os: "ubuntu", version: "24.04" } });
    await expect(fleet.up()).rejects.toThrow(/adopt: VM legacy-150 \(150\) runs debian, not ubuntu/);
    expect(fleet.sim.vms()).toHaveLength(1);
    expect(fleet.resources().legacy).toBeUndefined();
  });

  it("adopts an existing VM by its VMID without installing, and then manages it", async () => {
    const installs = fleet.sim.stats().installsStarted;
    await fleet.setVms({ legacy });
    const result = await fleet.up();
    expect(result.summary.resourceChanges).toMatchObject({ create: 1 });
    expect(fleet.sim.stats().installsStarted).toBe(installs);
    expect(fleet.resources().legacy!.id).toBe("150");
    expect(fleet.sim.vms()).toHaveLength(1);
    expect((await fleet.preview()).changeSummary).toEqual({ same: 2 });

    await fleet.setVms({ legacy: { ...legacy, cpu: 3 } });
    await fleet.up();
    expect(fleet.sim.vm(150)!.cpu).toBe(3);
    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });
});
