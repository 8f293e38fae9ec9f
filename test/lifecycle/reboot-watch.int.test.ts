// The reboot watch in create's follow, against the simulator: a stream lost
// in the init script, full looks a minute apart, and the install's reboot
// (the VM reads stopped for a few seconds between qm reboot's return and
// Proxmox's start) caught by the reads of the live power state in between.
// The server's steps are shortened so the install ends seconds after the
// loss; its bounds too, so a missed reboot ends the test on an assertion.
import { DEFAULT_TIMING, create } from "../../provider/lifecycle";
import { messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

/** Slow enough that a few seconds of stop are hundreds of real milliseconds, even on a loaded machine. */
const SPEED = 10;
const TIMING = {
  ...DEFAULT_TIMING,
  pollIntervalMs: 60_000,
  sshWaitBoundMs: 20_000,
  initScriptBoundMs: 60_000,
  commandBoundMs: 10_000,
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    speed: SPEED,
    imageCache: ["ubuntu/24.04"],
    durations: {
      createVm: 200,
      importDisk: 500,
      initConfig: 500,
      bootToSsh: 2_000,
      sshInit: 6_000,
      qmReboot: 1_000,
      rebootStopped: 5_000,
      rebootToSsh: 6_000,
      finalizePause: 500,
    },
  });
});
afterAll(() => h.close());

test("lost in the init script: the reboot is caught between two full looks, and the install is recorded at once", async () => {
  h.sim.addFault({ kind: "drop", op: "install", step: "SSH initialization", times: 1 });
  const clock = simClock(SPEED);
  const ctx = h.ctx({ clock, timing: TIMING });
  const { state } = await create(h.inputs({ vmid: 140, name: "watch" }), ctx);
  expect(state).toMatchObject({ running: true, installComplete: true });
  expect(messages(ctx.lines, "warn").some((m) => /seen running, then stopped, then running again/.test(m))).toBe(true);
  // A full look comes a minute after the first; the install's rest took seconds.
  expect(clock.slept()).toBeLessThan(30_000);
  expect(h.orphans([state])).toEqual([]);
});

describe("a stream whose break is noticed only when the server ends it (a chatty init script's framing): watched from SSH initialization on", () => {
  const hidden = { kind: "garble", op: "install", step: "SSH initialization", variant: "hidden" } as const;

  test("the reboot, seen while the stream was still read, settles the install as soon as the break is noticed", async () => {
    h.sim.addFault({ ...hidden, times: 1 });
    const clock = simClock(SPEED);
    const ctx = h.ctx({ clock, timing: TIMING });
    let lostAt = Number.POSITIVE_INFINITY;
    const warn = ctx.reporter.warn;
    ctx.reporter.warn = (m: string) => {
      if (/^lost the install stream at step "VM initialization > SSH initialization"/.test(m)) lostAt = clock.now();
      warn(m);
    };
    const { state } = await create(h.inputs({ vmid: 142, name: "hidden" }), ctx);
    expect(state).toMatchObject({ running: true, installComplete: true });
    expect(state.installState).toBeUndefined();
    expect(messages(ctx.lines, "warn").some((m) => /seen running, then stopped, then running again/.test(m))).toBe(
      true,
    );
    // the server had finished; the follow's first full look decides (the next would be a minute later)
    expect(clock.now() - lostAt).toBeLessThan(30_000);
    await h.sim.idle();
  });

  test("three installs in that phase on one server: their power reads share one pace, not one each", async () => {
    h.sim.addFault({ ...hidden, times: 3 });
    const before = h.sim.stats().requests.status ?? 0;
    const clock = simClock(SPEED);
    const states = await Promise.all(
      [143, 144, 145].map(
        async (vmid) => (await create(h.inputs({ vmid, name: "fleet" }), h.ctx({ clock, timing: TIMING }))).state,
      ),
    );
    const reads = (h.sim.stats().requests.status ?? 0) - before;
    // at most one `status` per rebootWatchIntervalMs to this server, and a few full looks per VM
    expect(reads).toBeLessThanOrEqual(clock.elapsed() / TIMING.rebootWatchIntervalMs + 3 * 3);
    expect(reads).toBeGreaterThan(0);
    for (const state of states) expect(state).toMatchObject({ running: true, installComplete: true });
    await h.sim.idle();
  });
});

test("the follow's cap comes while the reboot is watched for: the last round is a full look, and the VM is recorded as unconfirmed", async () => {
  h.sim.addFault({ kind: "drop", op: "install", step: "SSH initialization", times: 1 });
  const ctx = h.ctx({ clock: simClock(SPEED), timing: { ...TIMING, followTimeoutMs: 2_000 } });
  const { state } = await create(h.inputs({ vmid: 141, name: "capped" }), ctx);
  expect(state).toMatchObject({ vmid: 141, installState: "unconfirmed" });
  expect(state.installLost?.reason).toMatch(/the outcome is not known yet/);
  expect(messages(ctx.lines, "warn").some((m) => /VM capped-141 \(141\) is recorded as unconfirmed/.test(m))).toBe(
    true,
  );
  await h.sim.idle();
  h.sim.removeVm(141);
});
