// Downtime budgets from a YAML program through the resource plugin: the
// rollout scenario of test/e2e/downtime.test.ts as a YAML user meets it, on
// six VMs of the group "web" (test/consumers/yaml-rollout/Pulumi.yaml, VMIDs
// 231..236, cpu and allowDowntime from the stack's config). The budget is set
// the way a YAML user types it, `pulumi config set --path
// 'gopveqemu:downtimeBudgets.web' N`, which stores an object in the stack's
// config rather than JSON text. The VMs are made at a fast speed; each
// rollout runs at 1/20 of real time (one VM's update takes ~2.5 s: shutdown,
// set cpu, start and its wait for SSH) so that VMs of one wave really overlap,
// and the simulator's power timeline over that `up` is the witness of how
// many were down at once.
import { mostDownAtOnce, type PowerChange } from "../../simulator";
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer, type Run } from "./harness";

jest.setTimeout(180_000);

/** Simulated time runs 20 times faster than real time during a rollout. */
const ROLLOUT_SPEED = 20;
/** The speed the VMs are made at (installs in well under a second). */
const FAST = 2000;
const NAMES = ["r1", "r2", "r3", "r4", "r5", "r6"];
const vmidOf = (name: string) => 230 + Number(name.slice(1));
const VMIDS = NAMES.map(vmidOf);
/** How the plugin names a VM in its messages: its real name on the server, then its VMID. */
const label = (name: string) => `VM ${name}-${vmidOf(name)} (${vmidOf(name)})`;

/** The output, for a failed expectation's message. */
function shown(run: Run): string {
  return `exit ${run.code}\n${run.output.slice(-4000)}`;
}

let consumer: Consumer;
beforeEach(async () => {
  consumer = await newConsumer(yamlDriver("yaml-rollout"), { speed: FAST });
  // A short poll, as in the e2e test: the rollout's waits are not stretched by the provider's polling.
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, "gopveqemu:pollIntervalMs": "100" });
  const up = await consumer.run("up");
  expect([up.code, shown(up)]).toEqual([0, expect.any(String)]);
  // The starting point every test relies on: six VMs, cpu 2 (the program's default), running.
  for (const n of NAMES) expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 2, status: "running" });
}, 600_000);
afterEach(() => consumer?.dispose());

/** The budget of the group "web", as a YAML user sets it: one key of an object, by path, on the selected stack. */
async function setBudget(n: number): Promise<void> {
  const set = await consumer.pulumi(["config", "set", "--path", "gopveqemu:downtimeBudgets.web", String(n)]);
  expect([set.code, shown(set)]).toEqual([0, expect.any(String)]);
}

/** One `up` at the rollout's speed: its run, and the power changes it made (the timeline's slice from its start). */
async function rollOut(): Promise<{ run: Run; changes: PowerChange[] }> {
  consumer.sim.settings({ speed: ROLLOUT_SPEED });
  const from = consumer.sim.powerTimeline().length;
  const run = await consumer.run("up");
  consumer.sim.settings({ speed: FAST });
  return { run, changes: consumer.sim.powerTimeline().slice(from) };
}

test("a budget of 2 set by path: plan says 6 VMs in 3 waves; the up never has more than 2 down, and changes all 6", async () => {
  await setBudget(2);
  await consumer.setConfig({ cpu: "4" });

  const beforePlan = consumer.sim.powerTimeline().length;
  const plan = await consumer.run("plan");
  expect([plan.code, shown(plan)]).toEqual([0, expect.any(String)]);
  // The engine may diff in bursts, each saying the grown count again: the last line is the plan.
  const lines = plan.output.split("\n").filter((l) => l.includes('downtime group "web"'));
  expect(lines.at(-1)).toContain(
    'downtime group "web": 6 VMs go down in this deployment, at most 2 at once (downtimeBudgets: 2): 3 waves at least',
  );
  // A preview shuts nothing down.
  expect(consumer.sim.powerTimeline().slice(beforePlan)).toEqual([]);

  const { run, changes } = await rollOut();
  expect([run.code, shown(run)]).toEqual([0, expect.any(String)]);
  // Every one of the six went down in this up (so the peak is over all of them),
  // and at no moment more than 2 at once; exactly 2: the budget was used, not a one-by-one rollout.
  expect(new Set(changes.filter((c) => c.status === "shutting-down").map((c) => c.vmid))).toEqual(new Set(VMIDS));
  expect(mostDownAtOnce(changes, VMIDS).most).toBe(2);
  for (const n of NAMES) expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 4, status: "running" });
});

test("allowDowntime false: the plan of a cpu change fails with the refusal and its ways out; nothing reaches the server", async () => {
  await consumer.setConfig({ allowDowntime: "false" });
  const up = await consumer.run("up");
  expect([up.code, shown(up)]).toEqual([0, expect.any(String)]);

  await consumer.setConfig({ cpu: "4" });
  const before = { ...consumer.sim.stats().requests };
  const beforePlan = consumer.sim.powerTimeline().length;
  const plan = await consumer.run("plan");
  expect(plan.code).not.toBe(0);
  // The refusal names one of the six (the first VM the engine diffed).
  expect(plan.output).toMatch(
    /VM r[1-6]-23[1-6] \(23[1-6]\): allowDowntime is false, and this update would take it down \(cpu 2 -> 4\)/,
  );
  expect(plan.output).toContain("set allowDowntime: true for this deployment");
  expect(plan.output).toContain("pulumi up --replace");
  // The preview only read the server: every other kind of request stayed at its count.
  const after = consumer.sim.stats().requests;
  for (const op of Object.keys(after).filter((op) => !["list", "status", "health"].includes(op))) {
    expect([op, after[op]]).toEqual([op, before[op]]);
  }
  expect(consumer.sim.powerTimeline().slice(beforePlan)).toEqual([]);
  for (const n of NAMES) expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 2, status: "running" });
});

test("the 3rd start fails with a budget of 1: up fails naming it, the VMs not yet reached keep their cpu, the next up finishes", async () => {
  await setBudget(1);
  await consumer.setConfig({ cpu: "4" });
  // The 3rd start of the rollout fails, whichever VM comes 3rd.
  const fault = consumer.sim.addFault({ op: "start", kind: "fail", step: "starting VM", pass: 2, times: 1 });
  const { run, changes } = await rollOut();
  expect(run.code).not.toBe(0);

  // The failed VM is the one left stopped (with its new cpu: the change was made before the start).
  const stopped = NAMES.filter((n) => consumer.sim.vm(vmidOf(n))!.status === "stopped");
  expect(stopped).toHaveLength(1);
  const failed = stopped[0]!;
  expect(consumer.sim.vm(vmidOf(failed))!.cpu).toBe(4);
  // Its own error names it and the step that failed; the rollout's stop is said of it.
  expect(run.output).toContain(`updating ${label(failed)} failed at "start (after changing cpu)"`);
  expect(run.output).toContain(`${label(failed)} failed: no other VM of its rollout is shut down in this deployment`);

  // One at a time: two came back with the new cpu, the third failed, and the
  // rest were never shut down; they run with the old cpu, each named as held back.
  const touched = NAMES.filter((n) => changes.some((c) => c.vmid === vmidOf(n)));
  const heldBack = NAMES.filter((n) => !touched.includes(n));
  expect(touched).toHaveLength(3);
  expect(touched).toContain(failed);
  expect(mostDownAtOnce(changes, VMIDS).most).toBe(1);
  for (const n of touched.filter((n) => n !== failed))
    expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 4, status: "running" });
  for (const n of heldBack) {
    expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 2, status: "running" });
    expect(run.output).toContain(
      `${label(n)} was not shut down: the rollout of downtime group "web" stopped when ${label(failed)} failed`,
    );
  }

  // The fault gone, the next up finishes the rollout, still one at a time.
  consumer.sim.removeFault(fault);
  const again = await rollOut();
  expect([again.run.code, shown(again.run)]).toEqual([0, expect.any(String)]);
  expect(mostDownAtOnce(again.changes, VMIDS).most).toBe(1);
  for (const n of NAMES) expect(consumer.sim.vm(vmidOf(n))).toMatchObject({ cpu: 4, status: "running" });
});
