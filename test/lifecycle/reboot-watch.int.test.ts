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
