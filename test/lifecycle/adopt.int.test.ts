// adopt: an existing VM taken under management by its VMID (the import path
// of this provider), against the simulator.
import { check, create, diff, PartialError } from "../../provider/lifecycle";
import { CODES, LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import { startHarness } from "./harness";
import type { Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function seed(vmid: number, patch: { cpu?: number; running?: boolean } = {}) {
  h.sim.addVm({
    vmid,
    name: `old-${vmid}`,
    requestedName: "old",
    os: "debian",
    version: "12",
    cpu: patch.cpu ?? 2,
    memoryMb: 2048,
    diskGb: 16,
    running: patch.running ?? true,
    user: "debian",
  });
}

test("adopts the VM without installing, converges it to the inputs, and a diff after is empty", async () => {
  seed(160, { cpu: 2, running: false });
  const installs = h.sim.stats().installsStarted;
  const inputs = h.inputs({ os: "debian", version: "12", name: "old", vmid: 160, cpu: 3, adopt: true });
  const ctx = h.ctx();
  const { id, state } = await create(inputs, ctx);
  expect(id).toBe("160");
  expect(h.sim.stats().installsStarted).toBe(installs);
  expect(h.sim.vm(160)).toMatchObject({ cpu: 3, running: true });
  expect(state).toMatchObject({ vmid: 160, vmName: "old-160", cpu: 3, running: true });
  expect(ctx.lines.some((l) => /adopting VM old-160 \(160\)/.test(l.msg))).toBe(true);
  expect(diff(id, state, inputs).changes).toBe(false);
  expect(h.orphans([state])).toEqual([]);
});

test("a running VM adopted with rebootTriggers is not rebooted: there are no earlier triggers to differ from", async () => {
  seed(165, { running: true });
  const before = h.sim.stats().requests.reboot ?? 0;
  const inputs = h.inputs({ os: "debian", version: "12", name: "old", vmid: 165, rebootTriggers: ["v1"], adopt: true });
  const { id, state } = await create(inputs, h.ctx());
  expect(h.sim.stats().requests.reboot ?? 0).toBe(before);
  expect(state.inputs?.rebootTriggers).toEqual(["v1"]);
  expect(diff(id, state, inputs).changes).toBe(false);
  // the next change of the triggers reboots it
  expect(diff(id, state, { ...inputs, rebootTriggers: ["v2"] }).update).toEqual(["rebootTriggers"]);
});

test("a VM under 1 GiB (listed as 0 GiB) adopted as memoryMb: 512, as discover writes it: no change, no shutdown", async () => {
  h.sim.addVm({ vmid: 175, name: "tiny-175", requestedName: "tiny", os: "debian", memoryMb: 768, running: true });
  const before = { ...h.sim.stats().requests };
  const inputs = h.inputs({ os: "debian", version: "13", name: "tiny", vmid: 175, memoryMb: 512, adopt: true });
  const { id, state } = await create(inputs, h.ctx());
  expect(state).toMatchObject({ vmid: 175, memoryMb: 512, running: true });
  const after = h.sim.stats().requests;
  for (const op of ["shutdown", "stop", "setMemory", "start"] as const)
    expect([op, after[op] ?? 0]).toEqual([op, before[op] ?? 0]);
  expect(h.sim.vm(175)).toMatchObject({ memoryMb: 768, running: true });
  expect(diff(id, state, inputs).changes).toBe(false);
  // a size of 1 GiB or more is no figure of an under-1-GiB VM: it is set
  h.sim.addVm({ vmid: 176, name: "tiny-176", requestedName: "tiny", os: "debian", memoryMb: 768, running: false });
  const bigger = h.inputs({
    os: "debian",
    version: "13",
    name: "tiny",
    vmid: 176,
    memoryMb: 2048,
    running: false,
    adopt: true,
  });
  const grown = await create(bigger, h.ctx());
  expect(grown.state.memoryMb).toBe(2048);
  expect(h.sim.vm(176)?.memoryMb).toBe(2048);
});

test("refuses a VM that does not exist, whose OS differs, or whose name differs", async () => {
  await expect(create(h.inputs({ vmid: 170, adopt: true }), h.ctx())).rejects.toThrow(
    new LifecycleError(`adopt: there is no VM 170 on ${h.endpoint}; remove adopt to install one`),
  );
  seed(171);
  await expect(create(h.inputs({ os: "ubuntu", version: "24.04", vmid: 171, adopt: true }), h.ctx())).rejects.toThrow(
    /adopt: VM old-171 \(171\) runs debian, not ubuntu/,
  );
  await expect(
    create(h.inputs({ os: "debian", version: "12", name: "other", vmid: 171, adopt: true }), h.ctx()),
  ).rejects.toThrow(/adopt: VM 171 is named "old-171", not "other-171"/);
  // nothing was installed, nothing changed
  expect(h.sim.vm(170)).toBeUndefined();
  expect(h.sim.vm(171)).toMatchObject({ cpu: 2, running: true });
});

test("check: adopt needs a vmid", () => {
  const { failures } = check({}, { os: "debian", version: "12", adopt: true });
  expect(failures).toEqual([
    { property: "adopt", reason: "adopt: needs vmid; the VM to adopt is the one with that VMID" },
  ]);
  expect(check({}, { os: "debian", version: "12", adopt: true, vmid: 150 }).failures).toEqual([]);
});

test("diff refuses a replace while adopt is set (it would destroy the adopted VM), and allows it without", async () => {
  seed(180);
  const inputs = h.inputs({ os: "debian", version: "12", name: "old", vmid: 180, adopt: true });
  const { id, state } = await create(inputs, h.ctx());
  expect(() => diff(id, state, { ...inputs, version: "13" })).toThrow(
    new LifecycleError(
      "version changed on a VM declared with adopt: true, which needs a new VM; remove adopt (it only matters for the first up) to let Pulumi replace the VM, or keep the old values",
    ),
  );
  const { adopt: _adopt, ...plain } = inputs;
  expect(diff(id, state, { ...plain, version: "13" })).toMatchObject({
    replaces: ["version"],
    deleteBeforeReplace: true,
  });
  // in-place changes are fine with adopt still set
  expect(diff(id, state, { ...inputs, cpu: 4 })).toMatchObject({ changes: true, replaces: [], update: ["cpu"] });
});

describe("an adopt whose convergence stops part way", () => {
  test("is ONE partial type (PartialError), so the VM stays in state with its properties", async () => {
    seed(190, { cpu: 2, running: true });
    h.sim.addFault({ kind: "http", op: "setCpu", status: 500, body: "qm set failed", times: 1 });
    const err = await create(
      h.inputs({ os: "debian", version: "12", name: "old", vmid: 190, cpu: 3, adopt: true }),
      h.ctx(),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialError);
    expect(err).toMatchObject({ code: CODES.partial, id: "190", state: { vmid: 190, vmName: "old-190" } });
  });

  test("and the glue turns it into the engine's partial result (id and properties, with __provider)", async () => {
    seed(191, { cpu: 2, running: true });
    h.sim.addFault({ kind: "http", op: "setCpu", status: 500, body: "qm set failed", times: 1 });
    let impl: typeof import("../../provider/dynamic/provider-impl") | undefined;
    jest.isolateModules(() => {
      impl = require("../../provider/dynamic/provider-impl");
    });
    await impl!.configure({
      config: { get: (k: string) => (k === "goPveQemu:endpoint" ? h.endpoint : undefined) },
    } as never);
    const bag = {
      os: "debian",
      version: "12",
      name: "old",
      vmid: 191,
      cpu: 3,
      adopt: true,
      __provider: "serialized",
      __urn: "urn:pulumi:s::p::t::old",
    };
    const err = await impl!.create(bag).catch((e: unknown) => e);
    expect(err).toMatchObject({ id: "191", properties: { vmid: 191, __provider: "serialized" } });
    expect((err as { reasons: string[] }).reasons.length).toBeGreaterThan(0);
  });
});
