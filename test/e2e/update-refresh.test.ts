// Changes through the real engine: resizes preview as updates, say the
// shutdown they need, and apply in the server's order; an os change previews as a replace; refresh sees drift
// and deletion. Each case starts from its own freshly made VM.
import { BOTH_WAYS_IN, newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const base = { os: "ubuntu", version: "24.04", name: "app", vmid: 130, cpu: 2, memoryMb: 2048, diskGb: 20 };
const resized = { ...base, cpu: 4, memoryMb: 4096, diskGb: 30 };

describe.each(BOTH_WAYS_IN)("on the %s provider", (via) => {
  let fleet: Fleet;
  beforeEach(async () => {
    fleet = await newFleet({}, { via });
    await fleet.setVms({ app: base });
    await fleet.up();
  });
  afterEach(() => fleet.dispose());

  test("a cpu/memory/disk change previews as an update and applies through shutdown, set and start", async () => {
    await fleet.setVms({ app: resized });
    const preview = await fleet.preview();
    expect(preview.changeSummary).toEqual({ same: fleet.others, update: 1 });
    expect(fleet.diagnosticsFor("app", "warning")).toEqual([
      "VM app-130 (130) will be shut down for: cpu 2 -> 4, memory 2048 -> 4096 MB, disk 20 -> 30 GiB " +
        "(shutdown, set cpu, set memory, grow disk, start); it is down meanwhile",
    ]);

    const result = await fleet.up();
    expect(result.summary.resourceChanges).toEqual({ same: fleet.others, update: 1 });
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

  test("preview of a cpu change on a running VM names the shutdown, and shuts nothing down", async () => {
    await fleet.setVms({ app: { ...base, cpu: 4 } });
    const preview = await fleet.preview();
    expect(preview.changeSummary).toEqual({ same: fleet.others, update: 1 });
    const said = "VM app-130 (130) will be shut down for: cpu 2 -> 4 (shutdown, set cpu, start); it is down meanwhile";
    expect(fleet.diagnosticsFor("app", "warning")).toContain(said);
    // What `pulumi preview` prints (its --diff display leaves diagnostics out): under the VM, and in Diagnostics.
    const plain: string[] = [];
    await fleet.stack.preview({ onOutput: (x: string) => plain.push(x) });
    expect(plain.join("")).toMatch(/Vm app update \[diff: ~cpu\]; warning: VM app-130 \(130\) will be shut down for/);
    expect(plain.join("").split("Diagnostics:")[1]).toContain(`warning: ${said}`);
    expect(fleet.sim.vm(130)).toMatchObject({ cpu: 2, running: true });
    expect(fleet.sim.stats().requests.shutdown ?? 0).toBe(0);
  });

  test("an os change previews as a replace and touches nothing", async () => {
    await fleet.setVms({ app: { ...base, os: "debian", version: "12" } });
    const preview = await fleet.preview();
    expect(preview.changeSummary).toEqual({ same: fleet.others, replace: 1 });
    expect(fleet.sim.vms().map((v) => [v.vmid, v.os])).toEqual([[130, "ubuntu"]]);
  });

  test("refresh sees drift made behind Pulumi's back, and the next up repairs it", async () => {
    fleet.sim.mutateVm(130, { cpu: 8, running: false, status: "stopped" });
    await fleet.refresh();
    const out = fleet.resources().app!.outputs;
    expect(out.cpu).toBe(8);
    expect(out.running).toBe(false);
    const preview = await fleet.preview();
    expect(preview.changeSummary).toEqual({ same: fleet.others, update: 1 });
    await fleet.up();
    expect(fleet.sim.vm(130)).toMatchObject({ cpu: 2, running: true });
  });

  test("refresh drops a VM deleted behind Pulumi's back", async () => {
    fleet.sim.removeVm(130);
    await fleet.refresh();
    expect(fleet.resources().app).toBeUndefined();
  });
});
