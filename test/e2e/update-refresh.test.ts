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
    const order = [/shut down/, /set cpu 2 -> 4/, /set memory 2048 -> 4096/, /grow disk by 10 GiB/, /start \(/].map((re) =>
      lines.search(re),
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

describe("import", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
  });
  afterAll(() => fleet.dispose());

  it("adopts an existing VM by its VMID, and then manages it", async () => {
    fleet.sim.addVm({ vmid: 150, name: "legacy-150", requestedName: "legacy", os: "debian", version: "12", cpu: 2, memoryMb: 2048, diskGb: 16, running: true, user: "debian" });
    await fleet.setVms({ legacy: { os: "debian", version: "12", name: "legacy", vmid: 150, cpu: 2, memoryMb: 2048, diskGb: 16, importId: "150" } });
    const result = await fleet.up();
    expect(result.summary.resourceChanges).toMatchObject({ import: 1 });
    expect(fleet.resources().legacy!.id).toBe("150");
    expect(fleet.sim.vms()).toHaveLength(1);

    await fleet.setVms({ legacy: { os: "debian", version: "12", name: "legacy", vmid: 150, cpu: 3, memoryMb: 2048, diskGb: 16 } });
    await fleet.up();
    expect(fleet.sim.vm(150)!.cpu).toBe(3);
  });
});
