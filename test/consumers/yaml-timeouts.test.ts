// customTimeouts on a YAML program through the resource plugin and the real
// engine, one stack for the three operations: a create, an update stopped in
// a slow shutdown and a delete the server never answers each fail about 15 s
// in, naming the timeout and the step reached, with nothing orphaned (every
// VM the server has is in state); once the server has finished, the next run
// succeeds and the stack reads clean. The interrupted-deployment analogue is
// yaml-ctrl-c.test.ts.
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer, type Run, SHORT_BOUNDS } from "./harness";

jest.setTimeout(600_000);

const VMID = 191;
/** The program's customTimeouts, in seconds. */
const TIMEOUT_S = 15;

let consumer: Consumer;
afterEach(() => consumer?.dispose());

/** The output, for a failed expectation's message. */
function shown(run: Run): string {
  return `exit ${run.code}\n${run.output.slice(-4000)}`;
}

/** One run, and how long it took in seconds. */
async function timedRun(op: "up" | "destroy"): Promise<{ run: Run; took: number }> {
  const t0 = Date.now();
  const run = await consumer.run(op);
  return { run, took: (Date.now() - t0) / 1000 };
}

/** Every VM on the server is one the stack's state holds. */
function expectNoOrphan(): void {
  const inState = consumer.vms().map((v) => Number(v.id));
  for (const vm of consumer.sim.vms()) expect([vm.vmid, inState]).toEqual([vm.vmid, expect.arrayContaining([vm.vmid])]);
}

/** A run that failed on its deadline, in about the timeout: it names the timeout and the step it reached. */
function expectTimedOut({ run, took }: { run: Run; took: number }, op: string, step: RegExp): void {
  expect([run.code, shown(run)]).not.toEqual([0, expect.any(String)]);
  expect(run.output).toContain(`customTimeouts ${op} ${TIMEOUT_S}s passed at`);
  expect(run.output).toMatch(step);
  expect(run.output).toMatch(/Next: /);
  // The timeout, plus the engine's and the plugin's start (a few seconds here), not the operation's whole length.
  expect(took).toBeGreaterThan(TIMEOUT_S);
  expect(took).toBeLessThan(TIMEOUT_S + 12);
}

test("create, update and delete each stop at their customTimeouts, keep every VM in state, and the next run finishes the work", async () => {
  // Installs of about two minutes: the create's deadline passes during the image download.
  consumer = await newConsumer(yamlDriver("yaml-timeouts"), { speed: 2 });
  const { sim } = consumer;
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, "gopveqemu:pollIntervalMs": "500" });

  const create = await timedRun("up");
  expectTimedOut(create, "create", /at "install \[\d+\/\d+\]/);
  expect(create.run.output).toContain("the next `pulumi up` settles it from what the server shows");
  // The interrupted install is in state, unconfirmed, under its VMID; the server carries on with it.
  expect(consumer.vms()).toEqual([
    { id: String(VMID), outputs: expect.objectContaining({ installState: "unconfirmed" }) },
  ]);
  expectNoOrphan();

  // The server finishes the install; with the bounds shortened the settle time is past, and the next up confirms it.
  sim.settings({ speed: 2000 });
  await sim.idle();
  await consumer.setConfig(SHORT_BOUNDS);
  const settled = await consumer.run("up");
  expect([settled.code, shown(settled)]).toEqual([0, expect.any(String)]);
  expect(settled.output).not.toMatch(/--replace|no longer exists/);
  expect(consumer.vms()).toEqual([{ id: String(VMID), outputs: expect.objectContaining({ installComplete: true }) }]);
  expect(sim.installs()).toHaveLength(1); // taken over, not installed again
  const clean = await consumer.run("preview");
  expect([clean.code, shown(clean)]).toEqual([0, expect.any(String)]);

  // An update whose shutdown takes a minute of real time: it stops following it, forcing nothing.
  await consumer.setConfig({ cpu: "4" });
  sim.settings({ speed: 1, guestShutdownMs: 60_000 });
  const update = await timedRun("up");
  expectTimedOut(update, "update", /passed at "VM t-191 \(191\): shut down/);
  expect(sim.vm(VMID)).toMatchObject({ cpu: 2, shuttingDown: true });
  expect(sim.stats().requests.stop ?? 0).toBe(0);
  // The state holds the VM as the server showed it.
  expect(consumer.vms()).toEqual([{ id: String(VMID), outputs: expect.objectContaining({ cpu: 2, running: true }) }]);
  sim.settings({ speed: 2000, guestShutdownMs: 8_000 });
  await until(() => sim.vm(VMID)?.status === "stopped");
  const updated = await consumer.run("up");
  expect([updated.code, shown(updated)]).toEqual([0, expect.any(String)]);
  expect(sim.vm(VMID)).toMatchObject({ cpu: 4, status: "running" });
  const after = await consumer.run("preview");
  expect([after.code, shown(after)]).toEqual([0, expect.any(String)]);

  // A delete whose destroy the server never answers: the VM stays in state, and the next destroy removes it.
  const hang = sim.addFault({ op: "destroy", vmid: VMID, kind: "hang" });
  const remove = await timedRun("destroy");
  expectTimedOut(remove, "delete", /passed at "destroying VM t-191 \(191\)"/);
  // The last look only asks whether the VM is gone: the stop this delete made is no drift to report.
  expect(remove.run.output).not.toMatch(/changed outside Pulumi/);
  expect(consumer.vms().map((v) => v.id)).toEqual([String(VMID)]);
  expect(sim.vm(VMID)).toBeDefined();
  sim.removeFault(hang);
  const removed = await consumer.run("destroy");
  expect([removed.code, shown(removed)]).toEqual([0, expect.any(String)]);
  expect(consumer.vms()).toEqual([]);
  expect(sim.vms()).toEqual([]);
});

/** Polls until `f` answers something truthy (the test's own timeout bounds it). */
async function until<T>(f: () => T | undefined | false): Promise<T> {
  for (;;) {
    const v = f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
