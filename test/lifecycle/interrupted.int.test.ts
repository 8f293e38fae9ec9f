// Interrupted creates (a deployment killed mid-install: the server carries
// on, state never hears of the VM) and a server restarted mid-install,
// against the simulator with the lifecycle's clock in simulated time.
import { DEFAULT_TIMING, PartialError, check, create } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/errors";
import { derivedName } from "../../provider/lifecycle/derived-name";
import type { LifecycleContext, VmInputs } from "../../provider/lifecycle";
import { LIMITS } from "../../provider/lifecycle/inputs";
import { SPEED, messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

const URN = "urn:pulumi:prod::fleet::go-pve-qemu:index:Vm::web";
const OTHER_STACK = "urn:pulumi:staging::fleet::go-pve-qemu:index:Vm::web";
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 5_000 };

let h: Harness;
beforeEach(async () => {
  // The install's reboot moment unseen: the takeovers here are decided by the timeline.
  h = await startHarness({ imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 0 } });
});
afterEach(() => h.close());

function ctxFor(urn: string, extra: Partial<LifecycleContext> = {}) {
  return h.ctx({ clock: simClock(SPEED), timing: TIMING, urn, ...extra });
}

/** The inputs as the glue hands them to create: through check, which derives the name. */
function declared(urn: string, patch: Record<string, unknown> = {}): VmInputs {
  const r = check(
    {},
    { os: "ubuntu", version: "24.04", ...patch },
    { urn, connectionDefaults: { endpoint: h.endpoint } },
  );
  expect(r.failures).toEqual([]);
  return r.inputs;
}

/** Runs a create and abandons it (the process "dies") once a line matches. */
async function killedAt(inputs: VmInputs, line: RegExp): Promise<void> {
  const ac = new AbortController();
  const ctx = ctxFor(URN, { signal: ac.signal });
  const info = ctx.reporter.info;
  ctx.reporter.info = (msg: string) => {
    info(msg);
    if (line.test(msg)) ac.abort();
  };
  await create(inputs, ctx).catch(() => undefined); // whatever it said never reached state
}

describe("a second create after an interrupted one", () => {
  test.each([
    ["pinned VMID", { vmid: 150 }],
    ["auto VMID", {}],
  ])("%s: adopts the VM the first one left, installs nothing more, no duplicate", async (_l, pin) => {
    const inputs = declared(URN, pin);
    expect(inputs.name).toBe(derivedName(URN, LIMITS.nameMax));
    await killedAt(inputs, /VM created successfully/);
    const installs = h.sim.stats().installsStarted;
    const ctx = ctxFor(URN);
    const { id, state } = await create(inputs, ctx);
    await h.sim.idle();
    expect(h.sim.stats().installsStarted).toBe(installs);
    expect(h.sim.vms().map((vm) => vm.vmid)).toEqual([Number(id)]);
    expect(state).toMatchObject({ vmName: `${inputs.name}-${id}`, running: true, installComplete: true });
    expect(state.password).toBeUndefined(); // the dead deployment's generated password is not known
    expect(messages(ctx.lines, "warn").some((m) => /an earlier create of this resource was interrupted/.test(m))).toBe(
      true,
    );
  });

  test("killed once the VM runs: taken over once the server can no longer remove it", async () => {
    const inputs = declared(URN, { vmid: 151 });
    await killedAt(inputs, /VM strting/);
    const clock = simClock(SPEED);
    const { state } = await create(inputs, ctxFor(URN, { clock }));
    expect(h.sim.vms()).toHaveLength(1);
    expect(state).toMatchObject({ vmid: 151, running: true, installComplete: true });
    // the SSH wait and the init script's bound, counted from the takeover
    expect(clock.elapsed()).toBeGreaterThan(30 * 60_000);
  });

  test("killed once the VM runs, then its init script fails: the server removes it, nothing is recorded", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "SSH initialization" });
    const inputs = declared(URN, { vmid: 152 });
    await killedAt(inputs, /VM strting/);
    const err = await create(inputs, ctxFor(URN)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect((err as Error).message).toMatch(/created the VM and removed it again/);
    await h.sim.idle();
    expect(h.sim.vms()).toEqual([]);
  });

  test("another stack's VM of the same resource name is never adopted", async () => {
    const theirs = derivedName(OTHER_STACK, LIMITS.nameMax);
    h.sim.addVm({ vmid: 120, requestedName: theirs, running: true, os: "ubuntu" });
    const { state } = await create(declared(URN), ctxFor(URN));
    expect(state.vmid).not.toBe(120);
    expect(
      h.sim
        .vms()
        .map((vm) => vm.vmid)
        .sort(),
    ).toEqual([120, state.vmid].sort());
    // pinned on their VMID: refused, not adopted
    const err = await create(declared(URN, { vmid: 120 }), ctxFor(URN)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.vmidTaken });
  });

  test("a hand-made VM with the user's name is refused, with the advice to adopt it", async () => {
    h.sim.addVm({ vmid: 160, requestedName: "web", running: true, os: "ubuntu" });
    const inputs = declared(URN, { name: "web", vmid: 160 });
    const err = await create(inputs, ctxFor(URN)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.vmidTaken });
    expect((err as Error).message).toMatch(/declare it with `adopt: true`/);
    expect(h.sim.vms()).toHaveLength(1);
  });
});

describe("a server restarted mid-install", () => {
  test("after the VM was made: the create ends within its bound, keeping the half-made VM and saying what to run", async () => {
    const clock = simClock(SPEED);
    const ctx = ctxFor(URN, { clock });
    const info = ctx.reporter.info;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      if (/VM created successfully/.test(msg)) void h.sim.restart();
    };
    const err = await create(declared(URN, { vmid: 170 }), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialError);
    const p = err as PartialError;
    expect(p.state).toMatchObject({ vmid: 170, installComplete: false, running: false });
    expect(p.reasons.join("\n")).toMatch(/stays stopped.*the next `pulumi up` replaces it/s);
    // import + initialisation + qm start bounds, then the grace for a stopped VM: well under an hour
    expect(clock.elapsed()).toBeLessThan(30 * 60_000);
  });

  test("before the VM was made: nothing appears, a clear failure once it can no longer be created", async () => {
    h.sim.settings({ imageCache: [] });
    const clock = simClock(SPEED);
    const ctx = ctxFor(URN, { clock });
    const info = ctx.reporter.info;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      if (/start downloading OS image/.test(msg)) void h.sim.restart();
    };
    const err = await create(declared(URN), ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect((err as Error).message).toMatch(/never appeared, and the server can no longer create it/);
    expect(h.sim.vms()).toEqual([]);
    // the download bound (30 min by default) and the steps after it
    expect(clock.elapsed()).toBeLessThan(40 * 60_000);
  });
});
