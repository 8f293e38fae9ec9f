// A gateway's JSON 504 before any VMID was heard, for a VM with a name the
// user gave and the VMID left to the server: the server went on and made
// `<name>-<vmid>`. Taken into state only on evidence that nothing else made
// it; otherwise the error names each candidate and the one step that takes it
// in, and never says that nothing was made.
import { DEFAULT_TIMING, create } from "../../provider/lifecycle";
import type { LifecycleContext } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/model/lifecycle-error";
import { NameHolds } from "../../provider/lifecycle/core/name-holds";
import { SPEED, messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

const URN = "urn:pulumi:dev::gw::pulumi-nodejs:dynamic/goPveQemu:Vm::adv";
const ID = "9a7e9a7e9a7e9a7e9a7e9a7e9a7e9a7e";
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 500, settleWaitMs: Number.POSITIVE_INFINITY };

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 0 } });
});
afterEach(() => h.close());

const ctxOf = (extra: Partial<LifecycleContext> = {}) =>
  h.ctx({ clock: simClock(SPEED), timing: TIMING, urn: URN, identity: ID, ...extra });
const failureOf = (p: Promise<unknown>): Promise<Error & { code?: string }> =>
  p.then(
    () => {
      throw new Error("the create succeeded");
    },
    (err: unknown) => err as Error & { code?: string },
  );
const named = (prefix: string) => h.sim.vms().filter((vm) => vm.name.startsWith(`${prefix}-`));

test("the one new VM of the name, none before, no other install of it here: taken into state", async () => {
  h.sim.addFault({ kind: "gateway", op: "install", ms: 3_000, times: 1 });
  const ctx = ctxOf();
  const { id, state } = await create(h.inputs({ name: "adv-gw504" }), ctx);
  expect(state).toMatchObject({ vmName: `adv-gw504-${id}`, running: true, installComplete: true });
  expect(h.orphans([state])).toEqual([]);
  const warns = messages(ctx.lines, "warn");
  expect(warns[0]).toMatch(/^HTTP 504 in JSON came from a gateway/);
  expect(warns).toContainEqual(
    expect.stringMatching(
      new RegExp(`^VM adv-gw504-${id} \\(${id}\\) is taken as this install's: it is the one new VM`),
    ),
  );
});

test("two new VMs of the name: a failure naming both and the step, nothing taken", async () => {
  // The gateway answers once both exist: another client made the second one meanwhile.
  h.sim.addFault({ kind: "gateway", op: "install", ms: 600_000, times: 1 });
  const made = create(h.inputs({ name: "two" }), ctxOf());
  await until(() => h.sim.installs().length === 1);
  h.sim.addVm({ vmid: 400, name: "two-400", running: true });
  const err = await failureOf(made);
  await h.sim.idle();
  const mine = named("two").find((vm) => vm.vmid !== 400)!;
  expect(err.code).toBe(CODES.installUnknown);
  const both = [`two-${mine.vmid} \\(${mine.vmid}\\)`, "two-400 \\(400\\)"].sort();
  expect(err.message).toMatch(new RegExp(`VMs (${both.join(", ")}|${[...both].reverse().join(", ")}) appeared`));
  expect(err.message).toMatch(/2 new VMs have that name, and only one can be this install's/);
  expect(err.message).toMatch(/declare its `vmid` \((\d+) or (\d+)\) and `adopt: true`/);
  expect(err.message).not.toMatch(/nothing was (made|created)/);
});

test("a VM of the name was there before: a failure naming the new one, and its step takes it in", async () => {
  h.sim.addVm({ vmid: 150, name: "old-150", running: true });
  h.sim.addFault({ kind: "gateway", op: "install", ms: 3_000, times: 1 });
  const err = await failureOf(create(h.inputs({ name: "old" }), ctxOf()));
  await h.sim.idle();
  const fresh = named("old").filter((vm) => vm.vmid !== 150);
  expect(fresh).toHaveLength(1);
  const vmid = fresh[0]!.vmid;
  expect(err.code).toBe(CODES.installUnknown);
  expect(err.message).toMatch(new RegExp(`VM old-${vmid} \\(${vmid}\\) appeared on `));
  expect(err.message).toMatch(/old-150 \(150\) had that name before the install/);
  expect(err.message).toContain(`declare \`vmid: ${vmid}\` and \`adopt: true\` on this resource`);
  expect(err.message).not.toMatch(/nothing was (made|created)/);
  // The step the error gives takes it in.
  const { state } = await create(h.inputs({ name: "old", vmid, adopt: true }), ctxOf());
  expect(state).toMatchObject({ vmid, vmName: `old-${vmid}` });
});

test("nothing appears within the bound: the failure says a VM of the name may still come, never that nothing was made", async () => {
  // The server refuses behind the gateway: no VM is ever made.
  h.sim.addFault({ kind: "gateway", op: "install", ms: 3_000, times: 1 });
  h.sim.addFault({ kind: "fail", op: "install", step: "checking storage pool", times: 1 });
  const err = await failureOf(
    create(h.inputs({ name: "none" }), ctxOf({ timing: { ...TIMING, followTimeoutMs: 60_000 } })),
  );
  expect(err.message).toMatch(
    /If the server still creates a VM named none-<vmid>, declare it with its `vmid` and `adopt: true`/,
  );
  expect(err.message).not.toMatch(/nothing was (made|created)/);
});

describe("holdName: installs of one name on one endpoint in this process", () => {
  test("each of two overlapping holds is contested, whichever began first; other names and endpoints are not", () => {
    const holds = new NameHolds();
    const holdName = (key: string, name: string | undefined) => holds.hold(key, name);
    const first = holdName("e1", "web");
    const elsewhere = holdName("e2", "web");
    const other = holdName("e1", "db");
    expect(first.contested()).toBe(false);
    const second = holdName("e1", "web");
    expect([first.contested(), second.contested(), elsewhere.contested(), other.contested()]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    for (const hold of [first, second, elsewhere, other]) hold.release();
    const after = holdName("e1", "web");
    expect(after.contested()).toBe(false);
    after.release();
    expect(holdName("e1", undefined).contested()).toBe(false);
    // Another process's holds know nothing of these.
    const held = holdName("e1", "web");
    expect(new NameHolds().hold("e1", "web").contested()).toBe(false);
    held.release();
  });
});

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}
