// customTimeouts in the provider core: the engine's timeout of one Create,
// Update or Delete becomes that operation's own deadline, which cancels it
// alone (the process's cancel watch and every other operation go on), and
// its failure names the timeout, the step reached and what the next `up`
// does. Against the in-process simulator, made slow where a deadline must
// pass first.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import * as core from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { configure as configurePlugin } from "../../provider/plugin/provider-config";
import { startSimulator, type SimulatorHandle } from "../../simulator";

jest.setTimeout(60_000);

const IDENTITY = "d".repeat(32);
const urnOf = (name: string) => `urn:pulumi:dev::p::gopveqemu:index:Vm::${name}`;
const inputsOf = (name: string, vmid: number) => ({ os: "ubuntu", version: "24.04", name, vmid });

let sim: SimulatorHandle;
let journalDir: string;
let c: core.ProviderCore;
/** The process's cancel signal, as the plugin's cancel watch holds it: a deadline must never fire it. */
let processCancel: AbortController;

beforeEach(async () => {
  sim = await startSimulator({ speed: 2000, sshKey: true, imageCache: ["ubuntu/24.04"] });
  journalDir = mkdtempSync(path.join(tmpdir(), "deadline-"));
  processCancel = new AbortController();
  const watch: core.CancelWatch = { signal: processCancel.signal, cancel: () => undefined, track: (work) => work };
  const quiet = () => async () => undefined;
  c = core.configure({
    env: { GO_PVE_QEMU_JOURNAL_DIR: journalDir },
    engineUnknown: ENGINE_UNKNOWN,
    log: quiet,
    cancel: watch,
  });
  configurePlugin(c, { endpoint: sim.url, pollIntervalMs: 50, stackIdentity: IDENTITY });
});

afterEach(async () => {
  await sim.close();
  rmSync(journalDir, { recursive: true, force: true });
});

/** `f` run as the plugin runs an operation whose request carried `seconds`. */
function within<T>(op: core.TimedOperation, seconds: number, f: () => Promise<T>): Promise<T> {
  return c.timeouts.run({ op, seconds }, f);
}

/** A VM made at full speed and confirmed, for the update and delete cases. */
async function madeVm(name: string, vmid: number) {
  const made = await core.create(c, urnOf(name), inputsOf(name, vmid), IDENTITY);
  expect(made.state).toMatchObject({ installComplete: true, running: true });
  return made;
}

/** The rejection of `work`, whatever it is. */
async function failureOf(work: Promise<unknown>): Promise<Error> {
  return work.then(
    () => {
      throw new Error("expected the operation to fail");
    },
    (err: unknown) => err as Error,
  );
}

test("a create's deadline cancels that create alone: it answers a partial VM naming the timeout, the step and the next up; the other create goes on", async () => {
  sim.settings({ speed: 2 }); // an install of about 90 s
  const t0 = Date.now();
  const timedOut = failureOf(within("create", 1, () => core.create(c, urnOf("a"), inputsOf("a", 150), IDENTITY)));
  const other = core.create(c, urnOf("b"), inputsOf("b", 151), IDENTITY);
  let otherSettled = false;
  void other.then(() => (otherSettled = true)).catch(() => (otherSettled = true));

  const err = await timedOut;
  expect((Date.now() - t0) / 1000).toBeLessThan(4);
  expect(err).toBeInstanceOf(core.PartialFailure);
  const partial = err as core.PartialFailure;
  expect(partial.message).toMatch(/^customTimeouts create 1s passed at "install \[\d+\/\d+\] [^"]+"/);
  expect(partial.message).toContain("the next `pulumi up` settles it from what the server shows");
  expect(partial.reasons).toEqual([partial.message]);
  // The VM is kept in state as the interrupted install left it, and the journal keeps the attempt.
  expect(partial.id).toBe("150");
  expect(partial.properties).toMatchObject({ vmid: 150, installState: "unconfirmed" });
  expect(await c.journal().get(IDENTITY, urnOf("a"))).toMatchObject({ vmid: 150 });
  // Only that operation was cancelled.
  expect(processCancel.signal.aborted).toBe(false);
  expect(otherSettled).toBe(false);
  sim.settings({ speed: 2000 });
  await expect(other).resolves.toMatchObject({ id: "151" });
});

test("no deadline without a timeout: 0, another operation's, or one too long for a timer", async () => {
  for (const [op, seconds] of [
    ["create", 0],
    ["update", 1],
    ["create", 1e10],
  ] as const) {
    expect(c.timeouts.run({ op, seconds }, () => c.timeouts.of("create"))).toBeUndefined();
  }
  expect(c.timeouts.run({ op: "create", seconds: 15 }, () => c.timeouts.of("create"))).toEqual({
    op: "create",
    seconds: 15,
  });
  // Outside an operation's context there is none either.
  expect(c.timeouts.of("create")).toBeUndefined();
});

test("a deployment cancelled before the deadline ends as a cancel, not as a timeout", async () => {
  sim.settings({ speed: 2 });
  setTimeout(() => processCancel.abort(new Error("Ctrl-C")), 300);
  const err = await failureOf(within("create", 2, () => core.create(c, urnOf("a"), inputsOf("a", 150), IDENTITY)));
  expect(err.message).not.toMatch(/customTimeouts/);
  expect(err.message).toMatch(/cancelled/);
});

test("an update that times out in its shutdown is recorded as the server shows the VM; nothing is forced", async () => {
  const made = await madeVm("u", 160);
  // A guest that takes a minute to power off.
  sim.settings({ speed: 1, guestShutdownMs: 60_000 });
  const news = { ...inputsOf("u", 160), cpu: 4 };
  const err = await failureOf(within("update", 1, () => core.update(c, made.id, urnOf("u"), made.state, news)));
  expect(err).toBeInstanceOf(core.PartialFailure);
  expect(err.message).toMatch(/^customTimeouts update 1s passed at "VM u-160 \(160\): shut down/);
  expect(err.message).toContain("the next `pulumi up` reads the VM and makes the changes not made yet");
  // Still shutting down on the server: running, cpu unchanged, and no hard stop was sent.
  expect((err as core.PartialFailure).properties).toMatchObject({ vmid: 160, running: true, cpu: 2 });
  expect(sim.vm(160)).toMatchObject({ status: "running", shuttingDown: true, cpu: 2 });
  expect(sim.stats().requests.stop ?? 0).toBe(0);
});

test("a delete that times out leaves the VM in state while the server lists it", async () => {
  const made = await madeVm("d", 170);
  sim.addFault({ op: "destroy", vmid: 170, kind: "hang" });
  const err = await failureOf(within("delete", 1, () => core.remove(c, made.id, urnOf("d"), made.state)));
  expect(err).not.toBeInstanceOf(core.PartialFailure);
  expect(err.message).toMatch(/^customTimeouts delete 1s passed at "destroying VM d-170 \(170\)"/);
  expect(err.message).toContain("the VM stays in state; the next `pulumi destroy`");
  expect(sim.vm(170)).toBeDefined();
});

test("a delete whose deadline passed while the server was destroying it: gone, so it is deleted", async () => {
  const made = await madeVm("g", 180);
  // The destroy is done on the server, but its answer is held back for about 5 s.
  sim.addFault({ op: "destroy", vmid: 180, kind: "gateway", ms: 10_000_000 });
  await expect(within("delete", 1, () => core.remove(c, made.id, urnOf("g"), made.state))).resolves.toBeUndefined();
  expect(sim.vm(180)).toBeUndefined();
});
