// read against a stub server answering list and status: the GiB truncation
// of the list must not show up as drift, real drift must.
import { read } from "../../provider/lifecycle";
import type { LifecycleContext, VmState } from "../../provider/lifecycle";
import type { GoPveQemuApi } from "../../provider/client/api";
import type { VmEntry } from "../../provider/client/schemas";
import { inputs, listEntry, stateOf } from "./fixtures";
import { ProcessScope } from "../../provider/lifecycle";

function stub(entries: VmEntry[], status = "running"): LifecycleContext & { lines: string[] } {
  const lines: string[] = [];
  const client = {
    list: async () => ({ vms: entries, nodes: [] }),
    status: async () => status,
  } as unknown as GoPveQemuApi;
  return {
    lines,
    process: new ProcessScope(),
    reporter: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`), debug: () => undefined },
    client: () => client,
  };
}

describe("read: GiB truncation and drift", () => {
  test("memory 3000 MB lists as 2 GiB: kept, no drift", async () => {
    const s = stateOf(inputs({ memoryMb: 3000 }));
    const ctx = stub([listEntry({ memory: 2 })]);
    const r = await read("101", s, ctx);
    expect(r?.state.memoryMb).toBe(3000);
    expect(r?.state).toEqual(s);
    expect(ctx.lines.join("\n")).not.toMatch(/differs/);
  });

  test("512 MB lists as 0 GiB: kept", async () => {
    const s = stateOf(inputs({ memoryMb: 512 }));
    expect((await read("101", s, stub([listEntry({ memory: 0 })])))?.state.memoryMb).toBe(512);
  });

  test("a listed value that cannot come from the known one is drift: listed*1024", async () => {
    const s = stateOf(inputs({ memoryMb: 3000 }));
    const ctx = stub([listEntry({ memory: 4, cpu: 6, disk: 40, node: "pve2", running: false })], "stopped");
    const r = await read("101", s, ctx);
    expect(r?.state).toMatchObject({ memoryMb: 4096, cpu: 6, diskGb: 40, node: "pve2", running: false });
    expect(ctx.lines.join("\n")).toContain(
      "cpu 2 -> 6, memoryMb 3000 -> 4096, diskGb 16 -> 40, node pve1 -> pve2, running true -> false",
    );
  });

  test("gone -> undefined; VMID reused by another name -> undefined with a warning", async () => {
    expect(await read("101", stateOf(), stub([]))).toBeUndefined();
    const ctx = stub([listEntry({ name: "other-101" })]);
    expect(await read("101", stateOf(), ctx)).toBeUndefined();
    expect(ctx.lines[0]).toMatch(/^WARN VMID 101 .* now belongs to a VM named "other-101"/);
  });

  test("disabled: known values kept, said plainly", async () => {
    const ctx = stub([listEntry({ node: "-", os: "-", cpu: 0, memory: 0, disk: 0, name: "whatever" })]);
    const r = await read("101", stateOf(), ctx);
    expect(r?.state).toMatchObject({
      disabled: true,
      node: "pve1",
      cpu: 2,
      memoryMb: 2048,
      diskGb: 16,
      vmName: "web-101",
    });
    expect(ctx.lines[0]).toMatch(/disabled list/);
  });

  test("without prior state: a full state and the inputs that describe the VM", async () => {
    const ctx = stub([listEntry({ vmid: 130, name: "legacy-130", cpu: 4, memory: 8, disk: 32 })]);
    ctx.connectionDefaults = { endpoint: "http://127.0.0.1:1" };
    const r = await read("130", {} as Partial<VmState>, ctx);
    expect(r?.id).toBe("130");
    expect(r?.state).toMatchObject({
      vmid: 130,
      vmName: "legacy-130",
      os: "ubuntu",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 32,
    });
    expect(r?.state).not.toHaveProperty("imported");
    expect(r?.state.connection).toEqual({ endpoint: "http://127.0.0.1:1" });
    expect(r?.inputs).toEqual({
      os: "ubuntu",
      name: "legacy",
      vmid: 130,
      node: "pve1",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 32,
      running: true,
    });
  });

  test("a bad id is a clear error", async () => {
    await expect(read("web", {}, stub([]))).rejects.toThrow(/"web" is not a VMID/);
  });
});
