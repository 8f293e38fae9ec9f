// Updates that take VMs down, rolled through a downtime budget against the
// simulator: at no moment of the simulator's power timeline are more VMs of
// the group down (from the shutdown's power button until SSH answers) than
// the budget allows; a failed VM stops the group's
// rollout, the VMs after it untouched and running; a new deployment goes on
// from there. Without a budget, updates run as they always did.
import { create, update, ProcessScope } from "../../provider/lifecycle";
import type { DowntimeRules, LifecycleContext, VmInputs, VmState } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/model/lifecycle-error";
import { PartialUpdateError } from "../../provider/lifecycle/model/partial-error";
import { mostDownAtOnce } from "../../simulator";
import { messages, startHarness } from "./harness";
import type { Harness } from "./harness";

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ maxCpu: 8 });
});
afterEach(() => h.close());

interface Made {
  id: string;
  state: VmState;
  news: VmInputs;
}

/** `n` running VMs of group web, with 2 vCPUs. */
async function fleet(n: number, group: string | undefined = "web"): Promise<Made[]> {
  const made: Made[] = [];
  for (let i = 1; i <= n; i++) {
    const news = h.inputs({ name: `r${i}`, cpu: 2, ...(group ? { downtimeGroup: group } : {}) });
    made.push({ ...(await create(news, h.ctx())), news });
  }
  return made;
}

/** Every VM to `cpu` at once, as the engine runs updates side by side; each one's outcome. */
function rollOut(vms: Made[], cpu: number, ctx: LifecycleContext) {
  return Promise.all(
    vms.map((v) =>
      update(v.id, v.state, { ...v.news, cpu }, ctx).then(
        (state) => ({ ok: true as const, state }),
        (err: Error) => ({ ok: false as const, err }),
      ),
    ),
  );
}

/** The power changes since the fleet was made (the installs' own starts and reboots are not the rollout's). */
function since(mark: number) {
  return h.sim.powerTimeline().slice(mark);
}
const mark = () => h.sim.powerTimeline().length;

const budget = (web: number): { downtime: DowntimeRules } => ({ downtime: { budgets: { web } } });
const vmids = (vms: Made[]) => vms.map((v) => Number(v.id));

test("a budget of 2 for 6 VMs: never more than 2 down, 2 side by side, all end with the new cpu", async () => {
  const vms = await fleet(6);
  const from = mark();
  const outcomes = await rollOut(vms, 4, h.ctx(budget(2)));
  expect(outcomes.every((o) => o.ok)).toBe(true);
  expect(mostDownAtOnce(since(from), vmids(vms)).most).toBe(2);
  for (const v of vms) expect(h.sim.vm(Number(v.id))).toMatchObject({ cpu: 4, status: "running" });
});

test("no budget set: all 6 go down together, as before budgets", async () => {
  const vms = await fleet(6);
  const from = mark();
  const outcomes = await rollOut(vms, 4, h.ctx());
  expect(outcomes.every((o) => o.ok)).toBe(true);
  expect(mostDownAtOnce(since(from), vmids(vms)).most).toBe(6);
});

test("a budget for another group holds nothing back", async () => {
  const vms = await fleet(4, "db");
  const from = mark();
  await rollOut(vms, 4, h.ctx(budget(1)));
  expect(mostDownAtOnce(since(from), vmids(vms)).most).toBe(4);
});

test("the 3rd VM's start fails: the rollout stops there, the VMs after it untouched, and the next deployment finishes it", async () => {
  const vms = await fleet(6);
  const third = vms[2]!;
  const fault = h.sim.addFault({ op: "start", name: `r3-${third.id}`, kind: "fail", step: "starting VM" });
  const ctx = h.ctx(budget(1));
  const from = mark();
  const outcomes = await rollOut(vms, 4, ctx);

  // r3 failed and said the rollout stops; every other VM either made it before, or was held back untouched
  // (which ones depends on the order the updates reached the budget: their looks at the VM run side by side)
  const failed = outcomes[2]!;
  expect(failed.ok).toBe(false);
  const err = (failed as unknown as { err: PartialUpdateError }).err;
  expect(err).toBeInstanceOf(PartialUpdateError);
  const label = (v: Made) => `r${vms.indexOf(v) + 1}-${v.id} (${v.id})`;
  const others = vms.filter((v) => v !== third);
  const heldBack = others.filter((v) => !outcomes[vms.indexOf(v)]!.ok);
  const madeIt = others.filter((v) => outcomes[vms.indexOf(v)]!.ok);
  expect(heldBack.length + madeIt.length).toBe(5);
  expect(heldBack.length).toBeGreaterThan(0);
  const said = /^no other VM of its rollout is shut down in this deployment(?:; held back: (.*))?$/.exec(
    err.reasons.at(-1)!,
  );
  expect(said).not.toBeNull();
  // those it names were waiting then: each of them is among the held back
  for (const name of said![1]?.split(", ") ?? []) expect(heldBack.map(label)).toContain(name);
  for (const v of heldBack) {
    expect((outcomes[vms.indexOf(v)] as unknown as { err: Error & { code: string } }).err).toMatchObject({
      code: CODES.heldBack,
      message: expect.stringContaining(
        `the rollout of downtime group "web" stopped when VM r3-${third.id} (${third.id}) failed`,
      ),
    });
    // untouched: running, the old cpu, never stopped
    expect(h.sim.vm(Number(v.id))).toMatchObject({ cpu: 2, status: "running" });
    expect(since(from).filter((c) => c.vmid === Number(v.id))).toEqual([]);
  }
  for (const v of madeIt) expect(h.sim.vm(Number(v.id))).toMatchObject({ cpu: 4, status: "running" });
  expect(messages(ctx.lines, "warn")).toContain(`VM r3-${third.id} (${third.id}) failed: ${err.reasons.at(-1)}`);
  // never more than one down, and the failed one stays stopped with its new cpu
  expect(mostDownAtOnce(since(from), vmids(vms)).most).toBe(1);
  expect(h.sim.vm(Number(third.id))).toMatchObject({ cpu: 4, status: "stopped" });

  // The next deployment (a new process), the fault gone: from the states the first one left.
  h.sim.removeFault(fault);
  const next = vms.map((v, i) => {
    const o = outcomes[i]!;
    const state = o.ok ? o.state : o.err instanceof PartialUpdateError ? o.err.state : v.state;
    return { ...v, state };
  });
  const again = await rollOut(next, 4, h.ctx({ ...budget(1), process: new ProcessScope() }));
  expect(again.every((o) => o.ok)).toBe(true);
  for (const v of vms) expect(h.sim.vm(Number(v.id))).toMatchObject({ cpu: 4, status: "running" });
});

test("an update that keeps the VM up, or only stops it (running: false), takes no place", async () => {
  const [a, b] = await fleet(2);
  const ctx = h.ctx(budget(1));
  // a place held by someone else: the group is full
  const held = await ctx.process.downtime.enter(
    { id: "other", vm: "other", group: "web", server: { key: h.endpoint, endpoint: h.endpoint } },
    ctx.downtime!,
  );
  await expect(update(a!.id, a!.state, { ...a!.news, running: false }, ctx)).resolves.toMatchObject({ running: false });
  await expect(
    update(b!.id, b!.state, { ...b!.news, connection: { endpoint: h.endpoint } }, ctx),
  ).resolves.toMatchObject({ running: true });
  // a stopped VM changed and started again: no downtime that it did not already have, no place
  const stopped = await update(a!.id, a!.state, { ...a!.news, running: false }, ctx);
  await expect(update(a!.id, stopped, { ...a!.news, cpu: 4 }, ctx)).resolves.toMatchObject({ running: true, cpu: 4 });
  held!.leave();
});

test("a waiting VM says what it waits for", async () => {
  const vms = await fleet(2);
  const ctx = h.ctx(budget(1));
  await rollOut(vms, 4, ctx);
  expect(messages(ctx.lines, "info")).toContain(
    `VM r2-${vms[1]!.id} (${vms[1]!.id}) waits for its place in the rollout: downtime group "web" has 1 of 1 down (r1-${vms[0]!.id} (${vms[0]!.id}))`,
  );
});

test("allowDowntime false: an update of a VM that turned out running is refused before any step", async () => {
  const [a] = await fleet(1);
  // state says stopped (preview saw no downtime), the VM runs
  const stale = { ...a!.state, running: false };
  const before = { ...h.sim.stats().requests };
  await expect(update(a!.id, stale, { ...a!.news, cpu: 4, allowDowntime: false }, h.ctx())).rejects.toMatchObject({
    code: CODES.downtimeRefused,
    message: expect.stringContaining("allowDowntime is false, and this update would take it down (set cpu 2 -> 4)"),
  });
  const after = h.sim.stats().requests;
  for (const op of ["shutdown", "stop", "setCpu", "start"]) expect(after[op] ?? 0).toBe(before[op] ?? 0);
  expect(h.sim.vm(Number(a!.id))).toMatchObject({ cpu: 2, status: "running" });
});
