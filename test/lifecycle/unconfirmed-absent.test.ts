// After an interrupted deployment, the next up and refresh of an install
// left unconfirmed: a VM the server has not made yet is an install still
// running, not a VM gone; one that runs and was seen before is held without
// a wait; every run names the same settle time. On a virtual clock against
// the in-memory server.
import { diff, foreseeSettle, read, update } from "../../provider/lifecycle";
import type { VmState } from "../../provider/lifecycle";
import { inputs } from "./fixtures";
import { setup, unconfirmed } from "./unconfirmed-fixture";

/** Cancelled during the image download: the server may create the VM for 5 more minutes. */
function beforeCreate(s: ReturnType<typeof setup>, patch: Partial<NonNullable<VmState["installLost"]>> = {}): VmState {
  const t0 = s.clock.now();
  return unconfirmed(s.clock, {
    step: "preparation > downloading image",
    phase: "download",
    createBy: t0 + 300_000,
    startBy: t0 + 400_000,
    undoBy: t0 + 900_000,
    settleBy: t0 + 900_000,
    ...patch,
  });
}

const writes = (s: ReturnType<typeof setup>) => s.server.calls.filter((c) => c.call !== "list" && c.call !== "status");

describe("the VM of an unconfirmed install is not on the server yet", () => {
  test("the update waits for it while the server may still create it, follows it, and records it: no 'no longer exists'", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 30_000 };
    const state = beforeCreate(s);
    void s.clock.after(20_000).then(() => s.server.add({ vmid: 101, running: false }));
    void s.clock.after(28_000).then(() => (s.server.vms.get(101)!.running = true));
    const next = await update("101", state, inputs(), s.ctx);
    expect(next).toMatchObject({ vmid: 101, installState: "unconfirmed", running: true, cpu: 2 });
    expect(next.installLost?.seen).toBe(true);
    // it waited for the VM to appear, then no longer than settleWaitMs
    expect(s.clock.now() - s.clock.start).toBeGreaterThanOrEqual(20_000);
    expect(s.clock.now() - s.clock.start).toBeLessThanOrEqual(20_000 + 30_000 + 2_000);
    expect(s.lines.join("\n")).not.toMatch(/no longer exists/);
    expect(writes(s)).toEqual([]);
  });

  test("it appears and the install's reboot is seen: settled as installed in the same update", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 60_000 };
    const state = beforeCreate(s);
    void s.clock.after(10_000).then(() => s.server.add({ vmid: 101 }));
    void s.clock.after(30_000).then(() => (s.server.vms.get(101)!.running = false));
    void s.clock.after(33_000).then(() => (s.server.vms.get(101)!.running = true));
    const next = await update("101", state, inputs(), s.ctx);
    expect(next).toMatchObject({ installComplete: true, running: true });
    expect(next).not.toHaveProperty("installState");
    expect(s.clock.now() - s.clock.start).toBeLessThan(40_000);
  });

  test("it never appears: once the server can no longer create it, the update fails with advice that fits", async () => {
    const s = setup();
    const state = beforeCreate(s);
    const err = await update("101", state, inputs(), s.ctx).then(
      () => new Error("the update succeeded"),
      (e: unknown) => e as Error,
    );
    expect(err.message).toMatch(
      /^VM web-101 \(101\) no longer exists on .*, and its install can no longer make it .*run `pulumi refresh` to drop it from state, then `pulumi up` installs it again$/,
    );
    // not before the window closed: absence was evidence only then
    expect(s.clock.now() - s.clock.start).toBeGreaterThanOrEqual(300_000);
    expect(err.message).not.toMatch(/--replace/);
  });

  test("a refresh keeps it, unconfirmed, while the server may still create it, and drops it after", async () => {
    const s = setup();
    const state = beforeCreate(s);
    const kept = await read("101", state, s.ctx);
    expect(kept?.state).toMatchObject({ vmid: 101, installState: "unconfirmed" });
    expect(kept?.state.installLost?.settleBy).toBe(state.installLost!.settleBy);
    expect(s.lines.join("\n")).not.toMatch(/no longer exists/);
    await s.clock.after(300_000);
    expect(await read("101", state, s.ctx)).toBeUndefined();
  });

  test("a VM that the server made and removed again (seen before) is gone at once", async () => {
    const s = setup();
    const state = beforeCreate(s, { seen: true });
    await expect(update("101", state, inputs(), s.ctx)).rejects.toThrow(/no longer exists/);
    expect(s.clock.now() - s.clock.start).toBeLessThan(5_000);
  });

  test("a state that is not unconfirmed is gone as before", async () => {
    const s = setup();
    const { installState: _s, installLost: _l, ...confirmed } = beforeCreate(s);
    await expect(update("101", confirmed, inputs(), s.ctx)).rejects.toThrow(
      /no longer exists on .*; run `pulumi refresh` to drop it from state, then `pulumi up` creates it again/,
    );
  });
});

describe("no fruitless waits, no false drift: a VM that runs and was seen before is held", () => {
  test("the update does not follow it again, and records it as it is, with the same settle time", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 30_000 };
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock, { seen: true });
    const next = await update("101", state, inputs(), s.ctx);
    expect(s.clock.now() - s.clock.start).toBeLessThan(1_000);
    expect(next).toMatchObject({ installState: "unconfirmed", installLost: { settleBy: state.installLost!.settleBy } });
    expect(s.lines).toContainEqual(expect.stringMatching(/not followed: no wait can settle it/));
  });

  test("preview plans no change for it and says until when; after that time the diff settles it", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock, { seen: true });
    const foreseen = await foreseeSettle("101", state, s.ctx);
    expect(foreseen.held).toBe(true);
    expect(diff("101", state, inputs(), { installHeld: foreseen.held })).toMatchObject({ changes: false, update: [] });
    const at = new Date(state.installLost!.settleBy).toISOString();
    expect(s.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^warn VM web-101 \\(101\\): .*no change is planned for it .*it can be settled from ${at} at the latest$`,
        ),
      ),
    ]);
    await s.clock.after(600_000);
    const later = await foreseeSettle("101", state, s.ctx);
    expect(later.held).toBe(false);
    expect(diff("101", state, inputs(), { installHeld: later.held }).update).toEqual(["installState"]);
    const settled = await update("101", state, inputs(), s.ctx);
    expect(settled.installComplete).toBe(true);
    expect(settled).not.toHaveProperty("installState");
  });

  test("not seen by an earlier run (the first up after a cancel): followed, the install's reboot may still come", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 20_000 };
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock);
    expect((await foreseeSettle("101", state, s.ctx)).held).toBe(false);
    const next = await update("101", state, inputs(), s.ctx);
    expect(s.clock.now() - s.clock.start).toBeGreaterThanOrEqual(20_000);
    expect(next.installLost?.seen).toBe(true);
  });

  test("a stopped VM is followed: the install may still start it", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 20_000 };
    s.server.add({ vmid: 101, running: false });
    const state = unconfirmed(s.clock, { seen: true });
    expect((await foreseeSettle("101", state, s.ctx)).held).toBe(false);
  });
});

describe("one clock per unconfirmed VM", () => {
  test("every run names the same settle time, whatever the VM shows meanwhile", async () => {
    const s = setup();
    s.ctx.timing = { settleWaitMs: 20_000 };
    const state = beforeCreate(s);
    s.server.add({ vmid: 101 }); // it runs: a timeline from what it shows now would end sooner
    const first = await update("101", state, inputs(), s.ctx);
    await s.clock.after(60_000);
    const second = await update("101", first, inputs(), s.ctx);
    expect(first.installLost?.settleBy).toBe(state.installLost!.settleBy);
    expect(second.installLost?.settleBy).toBe(state.installLost!.settleBy);
    const times = new Set(
      s.lines.flatMap((l) => [...l.matchAll(/settled from (\S+) at the latest/g)].map((m) => m[1])),
    );
    expect([...times]).toEqual([new Date(state.installLost!.settleBy).toISOString()]);
    // and no message counts down a time of its own
    expect(s.lines.join("\n")).not.toMatch(/for \d+(\.\d+)? min/);
  });

  test("shorter bounds configured later shorten it, the same way in every run", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock, { seen: true });
    s.ctx.timing = { initScriptBoundMs: 1_000, sshWaitBoundMs: 1_000, commandBoundMs: 1_000 };
    const a = await read("101", state, s.ctx);
    expect(a?.state.installLost?.settleBy).toBeLessThan(state.installLost!.settleBy);
    const b = await read("101", state, s.ctx);
    expect(b?.state.installLost?.settleBy).toBe(a?.state.installLost?.settleBy);
  });

  test("an update of an unconfirmed install advises no --replace while the server may still install it", async () => {
    const s = setup();
    s.server.add({ vmid: 101 });
    const state = unconfirmed(s.clock, { seen: true });
    await update("101", state, inputs(), s.ctx);
    expect(s.lines.join("\n")).not.toMatch(/--replace|comes from an install that did not finish/);
  });
});
