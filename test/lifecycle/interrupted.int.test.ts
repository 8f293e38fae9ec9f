// Interrupted creates (a deployment killed mid-install: the server carries
// on, state never hears of the VM) and a server restarted mid-install,
// against the simulator with the lifecycle's clock in simulated time. The
// next create of the same resource takes its VM over on evidence only: this
// stack's mark in the VM's name, or this machine's install journal; never a
// name another stack or a person could have given.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  DEFAULT_TIMING,
  PartialError,
  check,
  create,
  diff,
  foreseeSettle,
  read,
  update,
} from "../../provider/lifecycle";
import type { LifecycleContext, VmInputs } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/model/lifecycle-error";
import { LIMITS } from "../../provider/lifecycle/model/input-rules";
import { fileJournal } from "../../provider/lifecycle/model/journal";
import type { InstallJournal } from "../../provider/lifecycle/model/journal";
import { stackName } from "../../provider/lifecycle/model/vm-names";
import { SPEED, messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

const URN = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::web";
const ID = "c0ffee00c0ffee00c0ffee00c0ffee00";
/** The twins: the same project, stack and resource names, on another backend. */
const TWIN_ID = "7e57ab1e7e57ab1e7e57ab1e7e57ab1e";
/** Following each install to its verdict (goPveQemu:waitForInstalls): the timeline's rules at work. */
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 5_000, settleWaitMs: Number.POSITIVE_INFINITY };
/** The defaults: a takeover that the server's answers cannot settle within settleWaitMs is recorded at once. */
const SHORT = { ...DEFAULT_TIMING, pollIntervalMs: 5_000 };

let h: Harness;
let dir: string;
let journal: InstallJournal;
beforeEach(async () => {
  // The install's reboot moment unseen: the takeovers here are decided by the timeline.
  h = await startHarness({ imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 0 } });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-journal-"));
  journal = fileJournal(dir);
});
afterEach(async () => {
  await h.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function ctxFor(extra: Partial<LifecycleContext> = {}) {
  return h.ctx({ clock: simClock(SPEED), timing: TIMING, urn: URN, identity: ID, journal, ...extra });
}

/** The inputs as the glue hands them to create: through check. */
function declared(patch: Record<string, unknown> = {}): VmInputs {
  const r = check(
    {},
    { os: "ubuntu", version: "24.04", ...patch },
    { urn: URN, connectionDefaults: { endpoint: h.endpoint } },
  );
  expect(r.failures).toEqual([]);
  return r.inputs;
}

/** Runs a create and abandons it (the process "dies") once a line matches. */
async function killedAt(inputs: VmInputs, line: RegExp, extra: Partial<LifecycleContext> = {}): Promise<void> {
  const ac = new AbortController();
  const ctx = ctxFor({ signal: ac.signal, ...extra });
  const info = ctx.reporter.info;
  ctx.reporter.info = (msg: string) => {
    info(msg);
    if (line.test(msg)) ac.abort();
  };
  await create(inputs, ctx).catch(() => undefined); // whatever it said never reached state
}

const journalFiles = () => fs.readdirSync(dir).filter((f) => f.endsWith(".json"));

describe("a second create after an interrupted one takes its VM over: no duplicate, nothing installed again", () => {
  test.each([
    ["no name, server-picked VMID: by the mark in its name", {}],
    ["no name, pinned VMID: by the mark in its name", { vmid: 150 }],
    ["a given name and a pinned VMID: by this machine's journal", { name: "i3", vmid: 151 }],
    ["a given name, server-picked VMID: by this machine's journal", { name: "i4" }],
  ])("%s", async (_label, patch) => {
    const inputs = declared(patch);
    await killedAt(inputs, /VM created successfully/);
    expect(journalFiles()).toHaveLength(1); // a cancelled create keeps its entry: the server carries on
    const installs = h.sim.stats().installsStarted;
    const ctx = ctxFor();
    const { id, state } = await create(inputs, ctx);
    await h.sim.idle();
    expect(h.sim.stats().installsStarted).toBe(installs);
    expect(h.sim.vms().map((vm) => vm.vmid)).toEqual([Number(id)]);
    expect(state).toMatchObject({ running: true, installComplete: true });
    // The IP the interrupted stream assigned, from this machine's journal: an output at once.
    expect(state.ip).toBe(h.sim.vm(Number(id))?.ip);
    expect(state.ip).toMatch(new RegExp(`^\\d+\\.\\d+\\.\\d+\\.${id}$`));
    if ("name" in patch) expect(state.vmName).toBe(`${patch.name}-${id}`);
    else expect(state.vmName).toMatch(/^web-[0-9a-f]{8}-[0-9a-z]+-\d+$/);
    expect(state.password).toBeUndefined(); // the dead deployment's generated password is not known
    const taken = messages(ctx.lines, "warn").find((m) => /was left by an interrupted create of this resource/.test(m));
    // The engine keeps the dead deployment's pending create whatever the provider does: the step that clears it is named.
    expect(taken).toMatch(/`npx go-pve-qemu-pulumi recover --after` clears/);
    expect(journalFiles()).toEqual([]); // handed back: the entry is gone
  });

  test("killed once the VM runs: taken over once the server can no longer remove it", async () => {
    const inputs = declared({ vmid: 152 });
    await killedAt(inputs, /VM strting/);
    const clock = simClock(SPEED);
    const { state } = await create(inputs, ctxFor({ clock }));
    expect(h.sim.vms()).toHaveLength(1);
    expect(state).toMatchObject({ vmid: 152, running: true, installComplete: true });
    // the SSH wait and the init script's bound, counted from the takeover (the install began just now)
    expect(clock.elapsed()).toBeGreaterThan(30 * 60_000);
  });

  test("killed after the server said its SSH initialization completed (this machine's journal has it): settled at once", async () => {
    const inputs = declared({ vmid: 158 });
    await killedAt(inputs, /SSH initialization completed/);
    const clock = simClock(SPEED);
    const { state } = await create(inputs, ctxFor({ clock }));
    expect(state).toMatchObject({ vmid: 158, running: true, installComplete: true });
    // past the point where the server removes a VM: no follow for the init script's bound
    expect(clock.slept()).toBeLessThan(5 * 60_000);
  });

  test("a VM whose install began hours ago: settled at once, not followed as if it had just begun", async () => {
    const began = simClock(SPEED).now() - 3 * 3_600_000;
    h.sim.addVm({ vmid: 153, requestedName: stackName(ID, URN, began, LIMITS.nameMax), running: true });
    const clock = simClock(SPEED);
    const { state } = await create(declared(), ctxFor({ clock }));
    expect(state).toMatchObject({ vmid: 153, running: true, installComplete: true });
    expect(clock.slept()).toBeLessThan(60_000);
    expect(h.sim.stats().installsStarted).toBe(0);
  });

  test("killed during the image download, before its VM exists: waited for and taken over, never installed twice", async () => {
    // A download of 20 simulated minutes at speed 200 (6 s): the next create surely looks before the
    // VM exists, even on a loaded machine, and the VM still comes 10 min before the download's bound.
    await h.close();
    const speed = 200;
    h = await startHarness({ speed, durations: { downloadImage: 20 * 60_000 } });
    const atSpeed = () => ({ clock: simClock(speed) });
    const inputs = declared({ name: "dl", vmid: 154 });
    await killedAt(inputs, /start downloading OS image/, atSpeed());
    const installs = h.sim.stats().installsStarted;
    const ctx = ctxFor(atSpeed());
    const { state } = await create(inputs, ctx);
    await h.sim.idle();
    expect(h.sim.stats().installsStarted).toBe(installs);
    expect(h.sim.vms().map((vm) => vm.name)).toEqual(["dl-154"]);
    expect(state).toMatchObject({ vmid: 154, installComplete: true });
    expect(messages(ctx.lines, "warn")[0]).toMatch(/an interrupted create of this resource began installing VM dl-154/);
    expect(messages(ctx.lines, "warn")[0]).toMatch(/recover --after` clears/);
  });

  test("killed once the VM runs, then its init script fails: the server removes it, nothing is recorded", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "SSH initialization" });
    const inputs = declared({ vmid: 155 });
    await killedAt(inputs, /VM strting/);
    const err = await create(inputs, ctxFor()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    // Which of the two definite reasons depends on whether a look fell in the VM's short life
    // (wall time on a loaded machine): seen and removed, or never seen once it can no longer come.
    expect((err as Error).message).toMatch(
      /created the VM and removed it again|the VM never appeared, and the server can no longer create it/,
    );
    await h.sim.idle();
    expect(h.sim.vms()).toEqual([]);
  });

  test("two interrupted creates each left a VM: the first is taken over, the later one removed as a leftover", async () => {
    const t0 = simClock(SPEED).now();
    h.sim.addVm({ vmid: 156, requestedName: stackName(ID, URN, t0 - 60_000, LIMITS.nameMax), running: true });
    h.sim.addVm({ vmid: 157, requestedName: stackName(ID, URN, t0 - 30_000, LIMITS.nameMax), running: true });
    const ctx = ctxFor();
    const { state } = await create(declared(), ctx);
    await h.sim.idle();
    expect(state.vmid).toBe(156);
    expect(h.sim.vms().map((vm) => vm.vmid)).toEqual([156]);
    expect(
      messages(ctx.lines, "warn").some((m) => /VM .*\(157\) carries this stack's mark .* removing it/.test(m)),
    ).toBe(true);
  });
});

describe("a takeover the server cannot settle yet is recorded at once, and settled later", () => {
  /** The clock of a later run, that starts at `t`. */
  const from = (t: number) => {
    const c = simClock(SPEED);
    const ahead = t - c.now();
    return { ...c, now: () => c.now() + ahead };
  };

  test("the installs finished after a double Ctrl-C: recorded as unconfirmed within the short wait, settled by a refresh after the bound", async () => {
    const inputs = declared({ name: "dc", vmid: 162 });
    await killedAt(inputs, /VM created successfully/);
    await h.sim.idle(); // the server finished the install while nobody listened
    const clock = simClock(SPEED);
    const ctx = ctxFor({ clock, timing: SHORT });
    const { id, state } = await create(inputs, ctx);
    expect(clock.slept()).toBeLessThan(2 * 60_000);
    expect(h.sim.vms().map((vm) => vm.vmid)).toEqual([162]);
    expect(state).toMatchObject({ vmid: 162, vmName: "dc-162", running: true, installState: "unconfirmed" });
    const lost = state.installLost!;
    expect(lost.reason).toMatch(/its install may still be running/);
    // settled from the install's start (the journal's) plus the bound: not from the takeover
    expect(lost.settleBy).toBeGreaterThan(clock.now());
    expect(lost.settleBy).toBeLessThan(clock.now() + 40 * 60_000);
    const warned = messages(ctx.lines, "warn").find((m) => /^VM dc-162 \(162\) is recorded as unconfirmed/.test(m));
    expect(warned).toMatch(/VM dc-162 \(162\) is recorded as unconfirmed .* it can be settled from \d{4}-\d\d-\d\dT/);
    expect(journalFiles()).toEqual([]); // state holds it now

    // The next up before the bound: an update that only settles, bounded by the short wait, and kept as it is.
    expect(diff(id, state, inputs).update).toEqual(["installState"]);
    const next = simClock(SPEED);
    const kept = await update(id, state, inputs, ctxFor({ clock: next, timing: SHORT }));
    expect(next.slept()).toBeLessThan(2 * 60_000);
    expect(kept).toMatchObject({ installState: "unconfirmed", installLost: { settleBy: lost.settleBy } });
    // ...while an update that would act on the VM is refused, nothing changed
    const acting = update(id, state, { ...inputs, cpu: 4 }, ctxFor({ clock: simClock(SPEED), timing: SHORT }));
    await expect(acting).rejects.toThrow(
      /its install is still not settled, and it can be settled from \S+ at the latest; nothing was changed/,
    );
    expect(h.sim.vm(162)).toMatchObject({ cpu: 2, status: "running" });
  });

  test("the refresh after the bound leaves it confirmed", async () => {
    const inputs = declared({ name: "rf", vmid: 163 });
    await killedAt(inputs, /VM created successfully/);
    await h.sim.idle();
    const { id, state } = await create(inputs, ctxFor({ timing: SHORT }));
    expect(state.installState).toBe("unconfirmed");
    // What the next up will do, said at preview from what the server shows now: the takeover saw the VM
    // run, and no wait can settle it before its settle time: no change is planned, nothing waits.
    const preview = ctxFor({ timing: SHORT });
    const foreseen = await foreseeSettle(id, state, preview);
    expect(foreseen.held).toBe(true);
    expect(messages(preview.lines, "warn")).toEqual([
      expect.stringMatching(
        /^VM rf-163 \(163\): its install is unconfirmed \(.*\); as the server shows it now, the VM runs, .*: no change is planned for it and nothing waits for it/,
      ),
    ]);
    const settleAt = new Date(state.installLost!.settleBy).toISOString();
    expect(messages(preview.lines, "warn")[0]).toContain(`it can be settled from ${settleAt} at the latest`);
    expect(diff(id, state, inputs, { installHeld: foreseen.held }).changes).toBe(false);
    const later = ctxFor({ timing: SHORT, clock: from(state.installLost!.settleBy + 1_000) });
    expect((await foreseeSettle(id, state, later)).held).toBe(false);
    expect(messages(later.lines, "warn")).toEqual([
      expect.stringMatching(/as the server shows it now, up records it as installed/),
    ]);
    const early = await read(id, state, ctxFor({ timing: SHORT }));
    expect(early?.state).toMatchObject({ installState: "unconfirmed" });
    const after = await read(id, state, ctxFor({ timing: SHORT, clock: from(state.installLost!.settleBy + 1_000) }));
    expect(after?.state).toMatchObject({ vmid: 163, installComplete: true });
    expect(after?.state.installState).toBeUndefined();
    expect(after?.state.installLost).toBeUndefined();
  });
});

describe("never another's VM", () => {
  test("the twins: another backend's stack with the same names made a VM; this one installs its own beside it", async () => {
    const theirs = stackName(TWIN_ID, URN, simClock(SPEED).now() - 60_000, LIMITS.nameMax);
    h.sim.addVm({ vmid: 120, requestedName: theirs, running: true, os: "ubuntu" });
    const { state } = await create(declared(), ctxFor());
    expect(state.vmid).not.toBe(120);
    expect(
      h.sim
        .vms()
        .map((vm) => vm.vmid)
        .sort(),
    ).toEqual([120, state.vmid].sort());
    // pinned on their VMID: refused, not taken over
    const err = await create(declared({ vmid: 120 }), ctxFor()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.vmidTaken });
  });

  test("a VM with the user's name at the pinned VMID and no journal entry: refused, naming the one step that records it", async () => {
    h.sim.addVm({ vmid: 160, requestedName: "web", running: true, os: "ubuntu" });
    const err = await create(declared({ name: "web", vmid: 160 }), ctxFor()).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.vmidTaken });
    expect((err as Error).message).toMatch(/`npx go-pve-qemu-pulumi recover --stack dev --adopt '.*::web=160'`/);
    expect(h.sim.vms()).toHaveLength(1);
  });

  test("another stack's journal entry for the same URN is not this stack's evidence", async () => {
    const inputs = declared({ name: "j", vmid: 161 });
    await killedAt(inputs, /VM created successfully/);
    const err = await create(inputs, ctxFor({ identity: TWIN_ID })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.vmidTaken });
  });
});

describe("a server restarted mid-install (its listener gone for a while: connections refused)", () => {
  /**
   * A create whose server dies when a line matches, and comes back 300 real ms (10 simulated
   * minutes) later; `sinceBack()`: the simulated ms the lifecycle chose to wait since it came back
   * (its own decisions, whatever a loaded machine's latency adds).
   */
  function restartedAt(line: RegExp) {
    const clock = simClock(SPEED);
    const ctx = ctxFor({ clock });
    const info = ctx.reporter.info;
    let backAt = Number.POSITIVE_INFINITY;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      if (line.test(msg)) void h.sim.restart({ downMs: 300 }).then(() => (backAt = clock.slept()));
    };
    return { ctx, sinceBack: () => clock.slept() - backAt };
  }

  test.each([
    ["after the VM was made, before its start: stopped", /VM created successfully/, false],
    ["past its start, waiting for ready: running, never initialised", /VM strting/, true],
  ])("%s: an incomplete install at once, not after the bound", async (_label, line, running) => {
    const { ctx, sinceBack } = restartedAt(line);
    const inputs = declared({ vmid: 170 });
    const err = await create(inputs, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialError);
    const p = err as PartialError;
    expect(p.state).toMatchObject({ vmid: 170, installComplete: false, running });
    expect(p.reasons.join("\n")).toMatch(
      /the server restarted mid-install .*nothing drives the install any more.*the next `pulumi up` replaces it/s,
    );
    // decided by what the server shows once it is back, not by the bound
    expect(sinceBack()).toBeLessThan(60_000);
    expect(h.orphans([p.state])).toEqual([]);
    // the next up replaces it
    expect(diff("170", p.state, inputs).replaces).toEqual(["installComplete"]);
  });

  test("before the VM was made: a clear failure at once, nothing appears", async () => {
    h.sim.settings({ imageCache: [] });
    const { ctx, sinceBack } = restartedAt(/start downloading OS image/);
    const err = await create(declared(), ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect((err as Error).message).toMatch(/the server restarted mid-install .*before it made the VM/);
    await h.sim.idle();
    expect(h.sim.vms()).toEqual([]);
    // once it is back, not after the download's bound (30 min by default)
    expect(sinceBack()).toBeLessThan(60_000);
  });

  test("a server that answered after the stream broke is no evidence: a refusal after that decides nothing", async () => {
    h.sim.addFault({ kind: "drop", op: "install", step: "waiting for ready", times: 1 });
    const ctx = ctxFor({ timing: SHORT });
    const info = ctx.reporter.info;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      // the follow's first answer came: the server was up after the stream broke
      if (/^following: VM .* exists on the server/.test(msg)) void h.sim.restart({ downMs: 300 });
    };
    const { state } = await create(declared({ vmid: 172 }), ctx);
    expect(state).toMatchObject({ vmid: 172, installState: "unconfirmed" });
    expect(messages(ctx.lines).some((m) => /restarted mid-install/.test(m))).toBe(false);
  });
});
