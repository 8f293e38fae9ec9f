// update against the simulator: the plan run in the preconditions' order,
// each step logged, failures that say what was and was not applied, and
// streams lost on the way settled by watching the VM. Each case has its own
// simulator: none depends on another's leftovers.
import { create, diff, update } from "../../provider/lifecycle";
import { LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import { PartialUpdateError } from "../../provider/lifecycle/model/partial-error";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { GoPveQemuClient } from "../../provider/client";
import { messages, startHarness } from "./harness";
import { simClock } from "./sim-clock";
import type { Harness } from "./harness";

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ nodes: ["pve1", "pve2"], maxCpu: 8 });
});
afterEach(() => h.close());

/** Requests per operation since `before`. */
function requestsSince(before: Record<string, number>): Record<string, number> {
  const now = h.sim.stats().requests;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(now))
    if (v - (before[k] ?? 0) > 0 && k !== "list" && k !== "status") out[k] = v - (before[k] ?? 0);
  return out;
}

async function vm(desired: VmInputs): Promise<{ id: string; state: VmState }> {
  return create(desired, h.ctx());
}

async function up(id: string, state: VmState, news: VmInputs, ctx = h.ctx()) {
  const before = { ...h.sim.stats().requests };
  const next = await update(id, state, news, ctx);
  return { next, requests: requestsSince(before), ctx };
}

test("cpu and memory on a running VM: graceful shutdown, wait, set, start; then no diff", async () => {
  const d0 = h.inputs({ name: "u1" });
  const { id, state } = await vm(d0);
  const d1 = h.inputs({ name: "u1", cpu: 4, memoryMb: 4096 });
  expect(diff(id, state, d1).update).toEqual(["cpu", "memoryMb"]);
  const { next, requests, ctx } = await up(id, state, d1);
  expect(requests).toEqual({ shutdown: 1, setCpu: 1, setMemory: 1, start: 1 });
  expect(next).toMatchObject({ cpu: 4, memoryMb: 4096, running: true, inputs: { cpu: 4, memoryMb: 4096 } });
  expect(h.sim.vm(Number(id))).toMatchObject({ cpu: 4, memoryMb: 4096, status: "running" });
  expect(messages(ctx.lines, "info")).toEqual(
    expect.arrayContaining([
      `VM u1-${id} (${id}): shut down (to change cpu, memory (the server refuses while it runs))`,
      `VM u1-${id} (${id}): set cpu 2 -> 4`,
      `VM u1-${id} (${id}): set memory 2048 -> 4096 MB`,
      `VM u1-${id} (${id}): start (after changing cpu, memory)`,
    ]),
  );
  expect(diff(id, next, d1).changes).toBe(false);
});

test("disk grows by the difference", async () => {
  const { id, state } = await vm(h.inputs({ name: "u2", diskGb: 20 }));
  const { next, requests } = await up(id, state, h.inputs({ name: "u2", diskGb: 32 }));
  expect(requests).toEqual({ shutdown: 1, setDisk: 1, start: 1 });
  expect(next.diskGb).toBe(32);
  expect(h.sim.vm(Number(id))?.diskGb).toBe(32);
});

test("node: streamed migration (the VM is stopped for it and started after)", async () => {
  const { id, state } = await vm(h.inputs({ name: "u3" }));
  const { next, requests } = await up(id, state, h.inputs({ name: "u3", node: "pve2" }));
  expect(requests).toEqual({ shutdown: 1, setNode: 1, start: 1 });
  expect(next.node).toBe("pve2");
  expect(h.sim.vm(Number(id))).toMatchObject({ node: "pve2", status: "running" });
});

test("rebootTriggers: a running VM is rebooted; no reboot when a restart happens anyway", async () => {
  const d0 = h.inputs({ name: "u4", rebootTriggers: ["v1"] });
  const { id, state } = await vm(d0);
  const r1 = await up(id, state, h.inputs({ name: "u4", rebootTriggers: ["v2"] }));
  expect(r1.requests).toEqual({ reboot: 1 });
  expect(r1.next.inputs?.rebootTriggers).toEqual(["v2"]);
  const r2 = await up(id, r1.next, h.inputs({ name: "u4", rebootTriggers: ["v3"], cpu: 3 }));
  expect(r2.requests).toEqual({ shutdown: 1, setCpu: 1, start: 1 });
  expect(diff(id, r2.next, h.inputs({ name: "u4", rebootTriggers: ["v3"], cpu: 3 })).changes).toBe(false);
});

test("running false, then true", async () => {
  const { id, state } = await vm(h.inputs({ name: "u5" }));
  const off = await up(id, state, h.inputs({ name: "u5", running: false }));
  expect(off.requests).toEqual({ shutdown: 1 });
  expect(off.next.running).toBe(false);
  expect(h.sim.vm(Number(id))?.status).toBe("stopped");
  // a config change while off: no shutdown, no start
  const cfg = await up(id, off.next, h.inputs({ name: "u5", running: false, cpu: 3 }));
  expect(cfg.requests).toEqual({ setCpu: 1 });
  const on = await up(id, cfg.next, h.inputs({ name: "u5", cpu: 3 }));
  expect(on.requests).toEqual({ start: 1 });
  expect(on.next.running).toBe(true);
  expect(h.sim.vm(Number(id))?.status).toBe("running");
});

test("drift found by refresh is corrected; the plan is made from the VM as it is now", async () => {
  const d0 = h.inputs({ name: "u6" });
  const { id, state } = await vm(d0);
  h.sim.mutateVm(Number(id), { cpu: 6, status: "stopped" });
  // the stored state does not know yet: update reads the VM first
  const { next, requests } = await up(id, state, d0);
  expect(requests).toEqual({ setCpu: 1, start: 1 });
  expect(next).toMatchObject({ cpu: 2, running: true });
});

test("clamped at install: asking the same again does nothing; asking less sets it", async () => {
  const d0 = h.inputs({ name: "u7", cpu: 16 });
  const { id, state } = await vm(d0);
  expect(state.cpu).toBe(8);
  expect(diff(id, state, d0).changes).toBe(false);
  const { next, requests } = await up(id, state, h.inputs({ name: "u7", cpu: 4 }));
  expect(requests).toEqual({ shutdown: 1, setCpu: 1, start: 1 });
  expect(next.cpu).toBe(4);
});

test("a changed connection is recorded; nothing is done on the server", async () => {
  const { id, state } = await vm(h.inputs({ name: "u8" }));
  const news = h.inputs({ name: "u8", connection: { endpoint: h.endpoint + "/", token: "tok-123456" } });
  expect(diff(id, state, news).update).toEqual(["connection"]);
  const { next, requests } = await up(id, state, news);
  expect(requests).toEqual({});
  expect(next.connection).toEqual({ endpoint: h.endpoint + "/", token: "tok-123456" });
});

test("a failed step: PartialUpdateError says what was and was not applied; state is true to the VM; the VM is started again", async () => {
  const { id, state } = await vm(h.inputs({ name: "u9" }));
  h.sim.addFault({ kind: "fail", op: "setMemory", vmid: Number(id), detail: "boom", times: 1 });
  const news = h.inputs({ name: "u9", cpu: 4, memoryMb: 4096, diskGb: 20 });
  const err = await update(id, state, news, h.ctx()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PartialUpdateError);
  const p = err as PartialUpdateError;
  expect(p.applied).toEqual([
    "shut down (to change cpu, memory, disk (the server refuses while it runs))",
    "set cpu 2 -> 4",
    "start (to bring the VM back after the failed step)",
  ]);
  expect(p.notApplied).toEqual([
    "set memory 2048 -> 4096 MB",
    "grow disk by 4 GiB (16 -> 20 GiB)",
    "start (after changing cpu, memory, disk)",
  ]);
  expect(p.reasons[0]).toMatch(/^updating VM u9-\d+ \(\d+\) failed at "set memory 2048 -> 4096 MB": .*boom/);
  expect(p.reasons).toContain(`VM u9-${id} (${id}) was started again`);
  expect(p.state).toMatchObject({ cpu: 4, memoryMb: 2048, diskGb: 16, running: true });
  expect(h.sim.vm(Number(id))).toMatchObject({ cpu: 4, memoryMb: 2048, diskGb: 16, status: "running" });
  // the next up carries on from there
  expect(diff(id, p.state, news).update).toEqual(["memoryMb", "diskGb"]);
  const done = await update(id, p.state, news, h.ctx());
  expect(done).toMatchObject({ cpu: 4, memoryMb: 4096, diskGb: 20, running: true });
});

test("a failed reboot keeps the old triggers, so the next up reboots again", async () => {
  const { id, state } = await vm(h.inputs({ name: "u10", rebootTriggers: ["a"] }));
  h.sim.addFault({ kind: "fail", op: "reboot", vmid: Number(id), times: 1 });
  const news = h.inputs({ name: "u10", rebootTriggers: ["b"] });
  const err = await update(id, state, news, h.ctx()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PartialUpdateError);
  const p = err as PartialUpdateError;
  expect(p.applied).toEqual([]);
  expect(p.notApplied).toEqual(["reboot (rebootTriggers changed)"]);
  expect(p.state.inputs?.rebootTriggers).toEqual(["a"]);
  expect(diff(id, p.state, news).update).toEqual(["rebootTriggers"]);
});

test("a VM gone or disabled: clear errors", async () => {
  const { id, state } = await vm(h.inputs({ name: "u11" }));
  h.sim.settings({ disabled: [{ vmid: Number(id), name: "reserved" }] });
  await expect(update(id, state, h.inputs({ name: "u11", cpu: 4 }), h.ctx())).rejects.toThrow(
    /is in the server's disabled list \(\.go_qemu_disabled/,
  );
  h.sim.settings({ disabled: [] });
  expect(h.sim.stats().requests.setCpu ?? 0).toBe(0);
  h.sim.removeVm(Number(id));
  const err = await update(id, state, h.inputs({ name: "u11", cpu: 4 }), h.ctx()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LifecycleError);
  expect((err as Error).message).toMatch(/no longer exists on .*; run `pulumi refresh`/);
});

test("a graceful shutdown that never ends falls back to a hard stop", async () => {
  const slow = await startHarness({ durations: { shutdownGrace: 1e9 } }, { shutdownTimeoutMs: 100 });
  try {
    const { id, state } = await create(slow.inputs({ name: "stuck" }), slow.ctx());
    const ctx = slow.ctx();
    const next = await update(id, state, slow.inputs({ name: "stuck", running: false }), ctx);
    expect(next.running).toBe(false);
    expect(slow.sim.vm(Number(id))?.status).toBe("stopped");
    expect(slow.sim.stats().requests).toMatchObject({ shutdown: 1, stop: 1 });
    expect(messages(ctx.lines, "warn").some((m) => /did not shut down within 100 ms .*stopping it hard/.test(m))).toBe(
      true,
    );
  } finally {
    await slow.close();
  }
});

describe("streams lost while the server carries on", () => {
  test("a migration whose connection drops: the list shows the target node, so it is applied and the VM started", async () => {
    const { id, state } = await vm(h.inputs({ name: "l1" }));
    h.sim.addFault({ kind: "drop", op: "setNode", step: "migrating", vmid: Number(id), times: 1 });
    const ctx = h.ctx();
    const next = await update(id, state, h.inputs({ name: "l1", node: "pve2" }), ctx);
    expect(next).toMatchObject({ node: "pve2", running: true });
    expect(h.sim.vm(Number(id))).toMatchObject({ node: "pve2", status: "running" });
    const warns = messages(ctx.lines, "warn");
    expect(warns.some((m) => /the migrate stream was lost/.test(m))).toBe(true);
    expect(warns).toContain(
      `VM l1-${id} (${id}): the migrate was applied (the VM is on node pve2), though its stream was lost`,
    );
  });

  test("a start whose stream stalls while the server waits for SSH: the VM runs, so it is applied", async () => {
    const { id, state } = await vm(h.inputs({ name: "l2", running: false }));
    h.sim.addFault({ kind: "stall", op: "start", step: "waiting for SSH", vmid: Number(id), times: 1 });
    const ctx = h.ctx();
    const next = await update(id, state, h.inputs({ name: "l2" }), ctx);
    expect(next.running).toBe(true);
    expect(h.sim.vm(Number(id))?.status).toBe("running");
    expect(messages(ctx.lines, "warn").some((m) => /the start stream was lost after step "starting VM"/.test(m))).toBe(
      true,
    );
  });

  test("a start dropped before qm start: watched until the VM runs", async () => {
    const { id, state } = await vm(h.inputs({ name: "l3", running: false }));
    h.sim.addFault({ kind: "drop", op: "start", step: "starting VM", vmid: Number(id), times: 1 });
    const next = await update(id, state, h.inputs({ name: "l3" }), h.ctx());
    expect(next.running).toBe(true);
    expect(h.sim.vm(Number(id))?.status).toBe("running");
  });

  test("a reboot dropped after the server reported it: applied, the new triggers recorded", async () => {
    const { id, state } = await vm(h.inputs({ name: "l4", rebootTriggers: ["a"] }));
    h.sim.addFault({ kind: "drop", op: "reboot", step: "waiting for SSH", vmid: Number(id), times: 1 });
    const next = await update(id, state, h.inputs({ name: "l4", rebootTriggers: ["b"] }), h.ctx());
    expect(next.inputs?.rebootTriggers).toEqual(["b"]);
  });

  test("a reboot dropped before the server reported it: a partial update keeping the old triggers; the next up reboots", async () => {
    const { id, state } = await vm(h.inputs({ name: "l5", rebootTriggers: ["a"] }));
    h.sim.addFault({ kind: "drop", op: "reboot", step: "rebooting VM", vmid: Number(id), times: 1 });
    const news = h.inputs({ name: "l5", rebootTriggers: ["b"] });
    const err = await update(id, state, news, h.ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialUpdateError);
    const p = err as PartialUpdateError;
    expect(p.reasons[0]).toMatch(/cannot show whether it rebooted/);
    expect(p.state).toMatchObject({ running: true, inputs: { rebootTriggers: ["a"] } });
    expect(diff(id, p.state, news).update).toEqual(["rebootTriggers"]);
    await h.sim.idle();
    const again = await update(id, p.state, news, h.ctx());
    expect(again.inputs?.rebootTriggers).toEqual(["b"]);
  });

  test("a definite failure (the server's refusal) is not settled by watching: it stays a failure", async () => {
    const { id, state } = await vm(h.inputs({ name: "l6" }));
    h.sim.addFault({ kind: "fail", op: "setNode", step: "migrating", vmid: Number(id), detail: "no route", times: 1 });
    const err = await update(id, state, h.inputs({ name: "l6", node: "pve2" }), h.ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialUpdateError);
    const p = err as PartialUpdateError;
    expect(p.reasons[0]).toMatch(/failed at "migrate pve1 -> pve2": .*no route/);
    expect(p.state).toMatchObject({ node: "pve1", running: true });
  });
});

test("the real server's blocking shutdown outlasts the client's request timeout: the shutdown still succeeds, no hard stop", async () => {
  // 20 simulated minutes of guest shutdown = 600 ms here, against a 200 ms request timeout
  const slow = await startHarness({ guestShutdownMs: 1_200_000 }, { shutdownTimeoutMs: 10_000 });
  const clients: GoPveQemuClient[] = [];
  try {
    const { id, state } = await create(slow.inputs({ name: "blocking" }), slow.ctx());
    const ctx = slow.ctx({
      client: (conn) => {
        const c = new GoPveQemuClient({ ...conn, requestTimeoutMs: 200, streamIdleTimeoutMs: 1500 });
        clients.push(c);
        return c;
      },
    });
    const next = await update(id, state, slow.inputs({ name: "blocking", cpu: 3 }), ctx);
    expect(next).toMatchObject({ cpu: 3, running: true });
    expect(slow.sim.stats().requests.stop ?? 0).toBe(0);
    expect(messages(ctx.lines, "warn")).toEqual([]);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await slow.close();
  }
});

test("a guest that takes 5 minutes to shut down: with the default timing the update succeeds, saying every 30 s that it waits", async () => {
  // The lifecycle's clock runs in the simulator's time: 5 simulated minutes take 1.5 s here.
  const speed = 200;
  const slow = await startHarness({ speed, guestShutdownMs: 5 * 60_000 });
  try {
    const clock = simClock(speed);
    const { id, state } = await create(slow.inputs({ name: "guest" }), slow.ctx({ clock, timing: {} }));
    const ctx = slow.ctx({ clock, timing: {} });
    const next = await update(id, state, slow.inputs({ name: "guest", cpu: 3 }), ctx);
    expect(next).toMatchObject({ cpu: 3, running: true });
    expect(slow.sim.stats().requests.stop ?? 0).toBe(0);
    const waiting = messages(ctx.lines, "info").filter((m) =>
      m.startsWith(`waiting for VM guest-${id} (${id}) to shut down (`),
    );
    expect(waiting[0]).toBe(`waiting for VM guest-${id} (${id}) to shut down (30 s)`);
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    expect(messages(ctx.lines, "warn")).toEqual([]);
  } finally {
    await slow.close();
  }
});
