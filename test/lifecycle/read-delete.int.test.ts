// read (refresh, and by VMID alone) and remove against the simulator. Each case has its
// own simulator: none depends on another's leftovers.
import { create, diff, read, remove } from "../../provider/lifecycle";
import { LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import type { GoPveQemuApi } from "../../provider/client/api";
import type { VmState } from "../../provider/lifecycle";
import { messages, startHarness } from "./harness";
import type { Harness } from "./harness";

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ nodes: ["pve1", "pve2"] });
});
afterEach(() => h.close());

describe("read", () => {
  test("an unchanged VM reads back exactly (no false drift from GiB truncation)", async () => {
    const { id, state } = await create(h.inputs({ name: "r1", memoryMb: 3000, diskGb: 20 }), h.ctx());
    const ctx = h.ctx();
    const r = await read(id, state, ctx);
    expect(r?.state).toEqual(state);
    expect(r?.inputs).toBeUndefined();
    expect(messages(ctx.lines).join("\n")).not.toMatch(/differs/);
  });

  test("drift in cpu, memory, disk, node and power shows up, and the next update puts it back", async () => {
    const desired = h.inputs({ name: "r2" });
    const { id, state } = await create(desired, h.ctx());
    h.sim.mutateVm(Number(id), { cpu: 4, memoryMb: 6144, diskGb: 30, node: "pve2", status: "stopped" });
    const ctx = h.ctx();
    const r = await read(id, state, ctx);
    expect(r?.state).toMatchObject({ cpu: 4, memoryMb: 6144, diskGb: 30, node: "pve2", running: false });
    expect(messages(ctx.lines, "info")).toContain(
      `VM r2-${id} (${id}) differs from the last known state (changed outside Pulumi?): cpu 2 -> 4, memoryMb 2048 -> 6144, diskGb 16 -> 30, node pve1 -> pve2, running true -> false`,
    );
    // a disk grown outside is left alone; the rest is a change back
    expect(diff(id, r!.state, desired).update).toEqual(["cpu", "memoryMb", "running"]);
  });

  test("a VM that is gone reads as undefined", async () => {
    const { id, state } = await create(h.inputs({ name: "r3" }), h.ctx());
    h.sim.removeVm(Number(id));
    expect(await read(id, state, h.ctx())).toBeUndefined();
  });

  test("a reused VMID (another VM's name) reads as gone, with a warning", async () => {
    const { id, state } = await create(h.inputs({ name: "r4" }), h.ctx());
    h.sim.removeVm(Number(id));
    h.sim.addVm({ vmid: Number(id), requestedName: "stranger", running: true });
    const ctx = h.ctx();
    expect(await read(id, state, ctx)).toBeUndefined();
    expect(messages(ctx.lines, "warn")[0]).toMatch(/now belongs to a VM named "stranger-\d+"/);
    expect(h.sim.vm(Number(id))?.name).toBe(`stranger-${id}`);
  });

  test("a disabled VM is reported plainly, known values kept", async () => {
    const { id, state } = await create(h.inputs({ name: "r5" }), h.ctx());
    h.sim.settings({ disabled: [{ vmid: Number(id), name: "reserved" }] });
    const ctx = h.ctx();
    const r = await read(id, state, ctx);
    h.sim.settings({ disabled: [] });
    expect(r?.state).toMatchObject({ disabled: true, node: "pve1", cpu: 2, vmName: `r5-${id}` });
    expect(messages(ctx.lines, "warn")[0]).toMatch(/disabled list/);
  });

  test("by VMID alone (no prior state): a full state from the list, and inputs describing it", async () => {
    h.sim.addVm({
      vmid: 200,
      requestedName: "legacy",
      os: "debian",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 32,
      running: true,
      node: "pve2",
    });
    const r = await read("200", {}, h.ctx());
    expect(r?.state).toMatchObject({
      vmid: 200,
      vmName: "legacy-200",
      os: "debian",
      node: "pve2",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 32,
      running: true,
      connection: { endpoint: h.endpoint },
    });
    expect(r?.state).not.toHaveProperty("imported");
    expect(r?.inputs).toEqual({
      os: "debian",
      name: "legacy",
      vmid: 200,
      node: "pve2",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 32,
      running: true,
    });
    // a program that describes it is no change, whatever version and password it says (none is on record);
    // its user is the OS's default one
    const program = h.inputs({ ...r!.inputs, version: "12", password: "pw-123456" });
    expect(diff("200", r!.state, program).changes).toBe(false);
    expect(diff("200", r!.state, { ...program, user: "admin" }).replaces).toEqual(["user"]);
    // and it can be deleted with the connection it was imported with
    await remove("200", r!.state, h.ctx());
    expect(h.sim.vm(200)).toBeUndefined();
  });
});

describe("remove", () => {
  test("a running VM is stopped, destroyed, and confirmed gone", async () => {
    const { id, state } = await create(h.inputs({ name: "d1" }), h.ctx());
    const before = { ...h.sim.stats().requests };
    const ctx = h.ctx();
    await remove(id, state, ctx);
    expect(h.sim.vm(Number(id))).toBeUndefined();
    const now = h.sim.stats().requests;
    expect((now.stop ?? 0) - (before.stop ?? 0)).toBe(1);
    expect((now.destroy ?? 0) - (before.destroy ?? 0)).toBe(1);
    expect(messages(ctx.lines, "info")).toEqual(
      expect.arrayContaining([`stopping VM d1-${id} (${id}) before destroying it`, `VM d1-${id} (${id}) is deleted`]),
    );
  });

  test("a stopped VM is destroyed without a stop", async () => {
    const { id, state } = await create(h.inputs({ name: "d2", running: false }), h.ctx());
    const before = h.sim.stats().requests.stop ?? 0;
    await remove(id, state, h.ctx());
    expect(h.sim.vm(Number(id))).toBeUndefined();
    expect(h.sim.stats().requests.stop ?? 0).toBe(before);
  });

  test("a VM already gone is success", async () => {
    const { id, state } = await create(h.inputs({ name: "d3" }), h.ctx());
    h.sim.removeVm(Number(id));
    const ctx = h.ctx();
    await remove(id, state, ctx);
    expect(messages(ctx.lines, "info")).toContain(`VM d3-${id} (${id}) is already gone; nothing to delete`);
  });

  test("a VMID now held by another VM is left alone", async () => {
    const { id, state } = await create(h.inputs({ name: "d4" }), h.ctx());
    h.sim.removeVm(Number(id));
    h.sim.addVm({ vmid: Number(id), requestedName: "other", running: true });
    await remove(id, state, h.ctx());
    expect(h.sim.vm(Number(id))?.name).toBe(`other-${id}`);
  });

  test("a disabled VM: a clear error naming the VM", async () => {
    const { id, state } = await create(h.inputs({ name: "d5" }), h.ctx());
    h.sim.settings({ disabled: [{ vmid: Number(id), name: "reserved" }] });
    const err = await remove(id, state, h.ctx()).catch((e: unknown) => e);
    h.sim.settings({ disabled: [] });
    expect(err).toBeInstanceOf(LifecycleError);
    expect((err as Error).message).toMatch(new RegExp(`^VM d5-${id} \\(${id}\\) is in the server's disabled list`));
    expect(h.sim.vm(Number(id))).toBeDefined();
    await remove(id, state, h.ctx());
  });

  test("a refusal: the server's words, and the VM stays in state (error)", async () => {
    const { id, state } = await create(h.inputs({ name: "d6", running: false }), h.ctx());
    h.sim.addFault({ kind: "fail", op: "destroy", vmid: Number(id), detail: "VM is locked (backup)", times: 1 });
    const err = await remove(id, state, h.ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LifecycleError);
    expect((err as Error).message).toBe(
      `the server refused to destroy VM d6-${id} (${id}): failed to destroy VM: failed to destroy VM: VM is locked (backup)`,
    );
    expect(h.sim.vm(Number(id))).toBeDefined();
    await remove(id, state, h.ctx());
    expect(h.sim.vm(Number(id))).toBeUndefined();
  });

  test("an old state without a connection uses the defaults", async () => {
    const { id, state } = await create(h.inputs({ name: "d7" }), h.ctx());
    const { connection: _c, inputs: _i, ...old } = state;
    await remove(id, old as VmState, h.ctx());
    expect(h.sim.vm(Number(id))).toBeUndefined();
  });

  test("the VM vanishes between the list and destroy: the server's 'no config' answer, confirmed by the list, is success", async () => {
    const { id, state } = await create(h.inputs({ name: "d8", running: false }), h.ctx());
    const ctx = h.ctx({
      client: (conn) => {
        const real = h.ctx().client(conn);
        const racing: GoPveQemuApi = Object.create(real) as GoPveQemuApi;
        racing.destroy = async (vmid, opts) => {
          h.sim.removeVm(vmid); // removed by hand meanwhile
          return real.destroy(vmid, opts);
        };
        return racing;
      },
    });
    await remove(id, state, ctx);
    expect(messages(ctx.lines, "info")).toContain(`VM d8-${id} (${id}) is already gone; nothing to delete`);
  });
});
