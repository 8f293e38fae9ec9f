// What each kind of answer proves, against the simulator, in simulated time:
// the server's own refusals and an `event: error` frame are verdicts at once;
// a gateway's JSON 504 after the server began is followed to the VM; a black
// hole that never sends headers means the install never began; a lost stream
// ends at the install's reboot, when it is seen.
import { DEFAULT_TIMING, PartialError, create, update } from "../../provider/lifecycle";
import type { LifecycleContext } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/model/lifecycle-error";
import { SPEED, messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

const URN = "urn:pulumi:dev::verdicts::pulumi-nodejs:dynamic/goPveQemu:Vm::gw";
/** 0.5 simulated seconds between looks: the reboot's stopped moment (30 s here) cannot slip between two. */
// Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 500, settleWaitMs: Number.POSITIVE_INFINITY };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 30_000 } });
});
afterAll(() => h.close());
afterEach(async () => {
  h.sim.clearFaults();
  await h.sim.idle();
});

const ID = "d15c0d15c0d15c0d15c0d15c0d15c0ab";
const simCtx = (extra: Partial<LifecycleContext> = {}, on: Harness = h) =>
  on.ctx({ clock: simClock(SPEED), timing: TIMING, urn: URN, identity: ID, ...extra });

describe("a gateway's JSON 504 after the server began the install: followed, the VM ends in state, no orphan", () => {
  test.each([
    ["a pinned VMID", { vmid: 170, name: "gwp" }],
    ["an auto VMID, the VM known by this stack's mark in its name", {}],
  ])("%s", async (_label, inputs) => {
    h.sim.addFault({ kind: "gateway", op: "install", times: 1 });
    const ctx = simCtx();
    const { id, state } = await create(h.inputs(inputs), ctx);
    expect(state).toMatchObject({ running: true, installComplete: true });
    if ("vmid" in inputs) expect(id).toBe("170");
    expect(h.orphans([state])).toEqual([]);
    expect(messages(ctx.lines, "warn")[0]).toMatch(
      /^HTTP 504 in JSON came from a gateway that holds back whole answers, not from the server: the install may be running behind it/,
    );
    h.sim.removeVm(Number(id));
  });
});

describe("named error frames", () => {
  test("`event: error` once the VM exists: the install fails at once, the VM kept as a partial create", async () => {
    h.sim.addFault({ kind: "error-frame", op: "install", step: "waiting for ready", times: 1 });
    const clock = simClock(SPEED);
    const err = await create(h.inputs({ vmid: 171, name: "ef" }), simCtx({ clock })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialError);
    expect((err as PartialError).state).toMatchObject({ vmid: 171, installComplete: false });
    expect((err as PartialError).reasons[0]).toMatch(/operation failed/);
    // no follow: decided on the frame, not on the clock
    expect(clock.slept()).toBeLessThan(5 * 60_000);
    h.sim.removeVm(171);
  });

  test("`event: error` before any VM: a plain failure, nothing left on the server", async () => {
    h.sim.addFault({ kind: "error-frame", op: "install", step: "checking storage pool", times: 1 });
    const before = h.sim.vms().length;
    const err = await create(h.inputs({ vmid: 172, name: "ef2" }), simCtx()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect(err).not.toBeInstanceOf(PartialError);
    await h.sim.idle();
    expect(h.sim.vms().length).toBe(before);
  });

  test("`sse_error` (the stream's own failure) while the install carries on: followed and recorded", async () => {
    h.sim.addFault({
      kind: "error-frame",
      op: "install",
      step: "creating VM",
      event: "sse_error",
      then: "end",
      times: 1,
    });
    const ctx = simCtx();
    const { state } = await create(h.inputs({ vmid: 173, name: "sse" }), ctx);
    expect(state).toMatchObject({ vmid: 173, running: true, installComplete: true });
    expect(messages(ctx.lines, "warn")[0]).toMatch(/^lost the install stream .*the stream reported its own failure/);
    h.sim.removeVm(173);
  });
});

test("a black hole that never sends the answer's headers: the install never began; one look, a plain failure", async () => {
  h.sim.addFault({ kind: "hang", op: "install", times: 1 });
  const clock = simClock(SPEED);
  const ctx = simCtx({ clock });
  const err = await create(h.inputs({ vmid: 174, name: "hole" }), ctx).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: CODES.installFailed });
  expect((err as Error).message).toMatch(/no answer came .*the server's stream never began .*nothing was created/);
  // the headers limit, then one look: no follow, nothing waited for by choice
  expect(messages(ctx.lines, "warn").filter((m) => /lost|following/.test(m))).toEqual([]);
  expect(clock.slept()).toBeLessThan(60_000);
  expect(h.sim.vm(174)).toBeUndefined();
});

test("lost during the init script, the install goes on: recorded at its reboot, long before the timeline's bound", async () => {
  // At speed 100 the 30 s moment lasts 300 ms of real time: a loaded machine cannot let it slip by.
  const speed = 100;
  const slow = await startHarness({ speed, imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 30_000 } });
  try {
    slow.sim.addFault({ kind: "drop", op: "install", step: "SSH initialization", times: 1 });
    const clock = simClock(speed);
    const ctx = simCtx({ clock }, slow);
    const { state } = await create(slow.inputs({ vmid: 175, name: "rb" }), ctx);
    expect(state).toMatchObject({ running: true, installComplete: true });
    // the timeline alone would have waited out the init script's bound (20 min) and more
    expect(clock.slept()).toBeLessThan(10 * 60_000);
    const warns = messages(ctx.lines, "warn");
    expect(warns.some((m) => /seen running, then stopped, then running again/.test(m))).toBe(true);
  } finally {
    await slow.close();
  }
});

test("a failed qm shutdown (the server's 500): the update stops the VM hard at once and applies the change", async () => {
  const { state } = await create(h.inputs({ vmid: 176, name: "sd" }), h.ctx());
  h.sim.addFault({ kind: "fail", op: "shutdown", vmid: 176, times: 1 });
  const clock = simClock(SPEED);
  const ctx = simCtx({ clock });
  const next = await update("176", state, h.inputs({ vmid: 176, name: "sd", cpu: 4 }), ctx);
  expect(next).toMatchObject({ cpu: 4, running: true });
  expect(h.sim.vm(176)).toMatchObject({ cpu: 4, status: "running" });
  // no ten-minute watch for a shutdown that had already failed
  expect(clock.slept()).toBeLessThan(5 * 60_000);
  expect(messages(ctx.lines, "warn").some((m) => /the server's qm shutdown failed .*stopping it hard/s.test(m))).toBe(
    true,
  );
  h.sim.removeVm(176);
});
