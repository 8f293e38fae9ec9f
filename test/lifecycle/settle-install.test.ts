// An unconfirmed install (its stream was lost before the server could no
// longer undo it) is settled by the next refresh or update, on a virtual
// clock against the in-memory server.
import { read, update } from "../../provider/lifecycle";
import { inputs, stateOf } from "./fixtures";
import { setup, unconfirmed } from "./unconfirmed-fixture";

test("the server can still remove the VM: it stays unconfirmed, and that it was seen is remembered", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const r = await read("101", unconfirmed(s.clock), s.ctx);
  expect(r?.state).toMatchObject({ installState: "unconfirmed", installComplete: false });
  expect(r?.state.installLost?.seen).toBe(true);
  expect(s.lines.some((l) => /its install is still unconfirmed/.test(l))).toBe(true);
});

test("past the point where the server can undo it, a running VM is settled as installed", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const state = unconfirmed(s.clock);
  await s.clock.after(600_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state.installComplete).toBe(true);
  expect(r?.state).not.toHaveProperty("installState");
  expect(r?.state).not.toHaveProperty("installLost");
  expect(r?.state).not.toHaveProperty("installProblem");
  expect(s.lines).toContainEqual(expect.stringMatching(/^info VM web-101 \(101\): its install is settled as complete/));
});

test("stopped after every step that would start it: settled as failed, kept in state with the reason", async () => {
  const s = setup();
  s.server.add({ vmid: 101, running: false });
  const state = unconfirmed(s.clock, { seen: true });
  await s.clock.after(900_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state).toMatchObject({ installComplete: false, running: false });
  expect(r?.state).not.toHaveProperty("installState");
  expect(r?.state.installProblem).toBeTruthy();
  expect(s.lines).toContainEqual(expect.stringMatching(/^warn VM web-101 \(101\): its install is settled as failed/));
});

test("removed by the server (its clean-up): the refresh drops it", async () => {
  const s = setup();
  expect(await read("101", unconfirmed(s.clock, { seen: true }), s.ctx)).toBeUndefined();
});

test("an update settles it too, before planning", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const state = unconfirmed(s.clock);
  await s.clock.after(600_000);
  const next = await update("101", state, inputs(), s.ctx);
  expect(next.installComplete).toBe(true);
  expect(next).not.toHaveProperty("installState");
  expect(s.lines.some((l) => /comes from an install that did not finish/.test(l))).toBe(false);
});

test("a state of the previous release (no install state at all) refreshes unchanged", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const old = stateOf(inputs());
  expect((await read("101", old, s.ctx))?.state).toEqual(old);
  expect(s.lines).toEqual([]);
});

test("a disabled VM (node '-', nothing real listed) is no evidence: the install stays unconfirmed", async () => {
  const s = setup();
  s.server.add({ vmid: 101, node: "-", os: "-", running: false, name: "whatever" });
  const state = unconfirmed(s.clock, { seen: true });
  await s.clock.after(900_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state).toMatchObject({ installState: "unconfirmed", disabled: true });
});

describe("an update of a VM whose install is still unconfirmed follows it to a verdict first, then plans", () => {
  test("the install's reboot is seen (running, stopped, running): settled at once, then the change is applied", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock); // the server may remove it for 10 more minutes
    // The install goes on: its one reboot, 40 s from now, stops the VM for 3 s.
    void s.clock.after(40_000).then(() => (s.server.vms.get(101)!.running = false));
    void s.clock.after(43_000).then(() => (s.server.vms.get(101)!.running = true));
    const next = await update("101", state, inputs({ cpu: 4 }), s.ctx);
    expect(next).toMatchObject({ installComplete: true, cpu: 4, running: true });
    expect(next).not.toHaveProperty("installState");
    // nothing acted on the VM before the reboot was seen, and the verdict did not wait for the timeline
    const firstWrite = s.server.calls.find((c) => c.call !== "list" && c.call !== "status");
    expect(firstWrite?.call).toBe("shutdown");
    expect(firstWrite!.at - s.clock.start).toBeGreaterThanOrEqual(43_000);
    expect(firstWrite!.at - s.clock.start).toBeLessThan(60_000);
    expect(s.lines).toContainEqual(
      expect.stringMatching(
        /^info VM web-101 \(101\): its install is settled as complete \(the VM was seen running, then stopped, then running again/,
      ),
    );
  });

  test("the reboot is missed: the timeline settles it, still before any change", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock);
    const next = await update("101", state, inputs({ cpu: 4 }), s.ctx);
    expect(next).toMatchObject({ installComplete: true, cpu: 4 });
    const firstWrite = s.server.calls.find((c) => c.call !== "list" && c.call !== "status");
    expect(firstWrite!.at - s.clock.start).toBeGreaterThanOrEqual(600_000);
  });

  test("the server cleans the VM up meanwhile: the update fails saying it is gone, and nothing was applied", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock);
    void s.clock.after(30_000).then(() => (s.server.vms.get(101)!.running = false));
    void s.clock.after(36_000).then(() => s.server.vms.delete(101));
    await expect(update("101", state, inputs({ cpu: 4 }), s.ctx)).rejects.toThrow(/no longer exists/);
    expect(s.server.calls.filter((c) => c.call !== "list" && c.call !== "status")).toEqual([]);
  });

  test("not settled within the follow's cap: the update fails having changed nothing", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock);
    s.ctx.timing = { followTimeoutMs: 60_000 };
    await expect(update("101", state, inputs({ cpu: 4 }), s.ctx)).rejects.toThrow(
      /its install is still not settled, and it can be settled from \S+ at the latest; nothing was changed/,
    );
    expect(s.server.calls.filter((c) => c.call !== "list" && c.call !== "status")).toEqual([]);
  });

  test("not settled within settleWaitMs, nothing to change: recorded still unconfirmed after the short wait, nothing done", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock);
    s.ctx.timing = { settleWaitMs: 20_000 };
    const next = await update("101", state, inputs(), s.ctx);
    expect(s.clock.now() - s.clock.start).toBeLessThanOrEqual(25_000);
    expect(next).toMatchObject({ installState: "unconfirmed", installLost: { settleBy: state.installLost!.settleBy } });
    expect(next.installLost?.seen).toBe(true);
    expect(s.lines.some((l) => /^warn VM .*its install is still unconfirmed .* it can be settled from /.test(l))).toBe(
      true,
    );
    expect(s.server.calls.filter((c) => c.call !== "list" && c.call !== "status")).toEqual([]);
  });
});

describe("the reboot watch: between two full looks, a running VM whose reboot may come is asked its live power alone", () => {
  /** The install's one reboot, `at` ms from now: the VM reads stopped for 1.5 s (qm reboot returned, Proxmox not yet started it). */
  function rebootAt(s: ReturnType<typeof setup>, at: number, stoppedMs = 1_500): void {
    void s.clock.after(at).then(() => (s.server.vms.get(101)!.running = false));
    void s.clock.after(at + stoppedMs).then(() => (s.server.vms.get(101)!.running = true));
  }
  const firstWriteAt = (s: ReturnType<typeof setup>): number =>
    s.server.calls.find((c) => c.call !== "list" && c.call !== "status")!.at - s.clock.start;

  test("a 1.5 s stop that falls between two full looks is caught, and settles the install at once", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    // Full looks come every 2 s from 0; this stop (300.25 s to 301.75 s) lies between two of them.
    rebootAt(s, 300_250);
    const next = await update("101", unconfirmed(s.clock), inputs({ cpu: 4 }), s.ctx);
    expect(next).toMatchObject({ installComplete: true, cpu: 4 });
    expect(firstWriteAt(s)).toBeGreaterThanOrEqual(301_750);
    expect(firstWriteAt(s)).toBeLessThan(305_000);
    expect(s.lines).toContainEqual(expect.stringMatching(/seen running, then stopped, then running again/));
  });

  test("the same stop without the watch (its interval no shorter than the full looks'): missed, the timeline decides", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    s.ctx.timing = { ...s.ctx.timing, rebootWatchIntervalMs: 2_000 };
    rebootAt(s, 300_250);
    const next = await update("101", unconfirmed(s.clock), inputs({ cpu: 4 }), s.ctx);
    expect(next).toMatchObject({ installComplete: true, cpu: 4 });
    expect(firstWriteAt(s)).toBeGreaterThanOrEqual(600_000);
    expect(s.lines).not.toContainEqual(expect.stringMatching(/seen running, then stopped, then running again/));
  });

  test("it costs one status per quick round; the list is still asked once per full look", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    rebootAt(s, 300_250);
    await update("101", unconfirmed(s.clock), inputs({ cpu: 4 }), s.ctx);
    const before = (call: string): number =>
      s.server.calls.filter((c) => c.call === call && c.at - s.clock.start < 301_750).length;
    // 2 s between full looks, 0.5 s between reads of the power state
    expect(before("list")).toBeGreaterThanOrEqual(140);
    expect(before("list")).toBeLessThanOrEqual(160);
    expect(before("status")).toBeGreaterThanOrEqual(560);
    expect(before("status")).toBeLessThanOrEqual(640);
  });

  test("a VM whose power cannot be read live (status is node-local) gets no quick rounds", async () => {
    const s = setup();
    s.server.add({ vmid: 101, node: "pve2" });
    await update("101", unconfirmed(s.clock), inputs({ cpu: 4, node: "pve2" }), s.ctx).catch(() => undefined);
    const count = (call: string): number => s.server.calls.filter((c) => c.call === call).length;
    expect(count("list")).toBeGreaterThan(100);
    expect(count("status")).toBeLessThanOrEqual(count("list"));
  });

  test("the clean-up's stop, then its removal: the failed read of the power state brings the full look that sees it gone", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    void s.clock.after(30_250).then(() => (s.server.vms.get(101)!.running = false));
    void s.clock.after(35_250).then(() => s.server.vms.delete(101));
    await expect(update("101", unconfirmed(s.clock), inputs({ cpu: 4 }), s.ctx)).rejects.toThrow(/no longer exists/);
    expect(s.clock.elapsed()).toBeLessThan(36_000);
  });
});
