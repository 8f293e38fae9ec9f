// What preview says of a rollout: each burst of diffs is counted per group
// (and per server under a cap) and said once, as one line of the stack.
import { DowntimePlan, planScopes, type PlanScope } from "../../provider/lifecycle/core/downtime-plan";

const SERVER = { key: "http://127.0.0.1:1", endpoint: "http://127.0.0.1:1" };

/** What the plan says of one burst of `count` VMs going down in `scope`. */
async function planLine(scope: PlanScope, count: number): Promise<string> {
  const said: string[] = [];
  const plan = new DowntimePlan();
  await Promise.all(Array.from({ length: count }, (_, i) => plan.note(`vm${i}`, [scope], (l) => said.push(l), 5)));
  expect(said).toHaveLength(1);
  return said[0]!;
}

describe("the plan's line", () => {
  const [web] = planScopes("web", SERVER, { budgets: { web: 3 } });

  test("names the group, how many go down, at most how many at once, and the waves", async () => {
    expect(await planLine(web!, 12)).toBe(
      'downtime group "web": 12 VMs go down in this deployment, at most 3 at once (downtimeBudgets: 3): 4 waves at least',
    );
    expect(await planLine(web!, 13)).toContain("at most 3 at once (downtimeBudgets: 3): 5 waves at least");
    expect(await planLine(web!, 2)).toContain(
      "2 VMs go down in this deployment, at most 2 at once (downtimeBudgets: 3): 1 wave at least",
    );
    expect(await planLine(web!, 1)).toContain("1 VM goes down");
  });

  test("a group without a budget says so, and where to set one", async () => {
    const [db] = planScopes("db", SERVER, { budgets: { web: 3 } });
    expect(await planLine(db!, 4)).toBe(
      'downtime group "db": 4 VMs go down in this deployment, as many at once as Pulumi runs updates together (no budget: set one in downtimeBudgets)',
    );
  });

  test("a server cap is a scope of its own, for VMs in no group too", async () => {
    const scopes = planScopes(undefined, SERVER, { budgets: {}, perServer: 2 });
    expect(scopes.map((s) => s.name)).toEqual([`the VMs of ${SERVER.endpoint}`]);
    expect(await planLine(scopes[0]!, 5)).toContain("at most 2 at once (maxDownPerServer: 2): 3 waves at least");
    expect(planScopes(undefined, SERVER, { budgets: {} })).toEqual([]);
  });
});

describe("counting the diffs of one deployment", () => {
  const rules = { budgets: { web: 3 } };

  test("a burst of 12 is said once, when it is over; every diff waits for that", async () => {
    const plan = new DowntimePlan();
    const said: string[] = [];
    const scopes = planScopes("web", SERVER, rules);
    let released = 0;
    const notes = Array.from({ length: 12 }, (_, i) =>
      plan.note(`vm${i}`, scopes, (l) => said.push(l), 30).then(() => released++),
    );
    expect(said).toEqual([]);
    await Promise.all(notes);
    expect(released).toBe(12);
    expect(said).toEqual([await planLine(scopes[0]!, 12)]);
  });

  test("a later burst says the grown count; the same VM twice counts once", async () => {
    const plan = new DowntimePlan();
    const said: string[] = [];
    const scopes = planScopes("web", SERVER, rules);
    await Promise.all(["a", "b"].map((vm) => plan.note(vm, scopes, (l) => said.push(l), 20)));
    await Promise.all(["b", "c", "d"].map((vm) => plan.note(vm, scopes, (l) => said.push(l), 20)));
    await plan.note("a", scopes, (l) => said.push(l), 20);
    expect(said.map((l) => /(\d+) VMs/.exec(l)![1])).toEqual(["2", "4"]);
  });
});

describe("diffs one after another (a YAML program, --parallel 1)", () => {
  test("a first burst of one waits; after it each diff says the count so far at once, without waiting", async () => {
    const plan = new DowntimePlan();
    const said: string[] = [];
    const scopes = planScopes("web", SERVER, { budgets: { web: 2 } });
    const QUIET = 40;
    const started = Date.now();
    await plan.note("a", scopes, (l) => said.push(l), QUIET);
    const first = Date.now() - started;
    expect(first).toBeGreaterThanOrEqual(QUIET - 5);
    // the next ones answer at once (before any timer could fire), each saying the grown count
    let answered = 0;
    const next = ["b", "c", "d"].map((vm) => plan.note(vm, scopes, (l) => said.push(l), QUIET).then(() => answered++));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(3);
    await Promise.all(next);
    expect(said.map((l) => /(\d+) VMs? go/.exec(l)![1])).toEqual(["1", "2", "3", "4"]);
    expect(said.at(-1)).toContain(
      "4 VMs go down in this deployment, at most 2 at once (downtimeBudgets: 2): 2 waves at least",
    );
  });

  test("side by side, a burst is said once even after an earlier burst of many", async () => {
    const plan = new DowntimePlan();
    const said: string[] = [];
    const scopes = planScopes("web", SERVER, { budgets: { web: 2 } });
    await Promise.all(["a", "b"].map((vm) => plan.note(vm, scopes, (l) => said.push(l), 20)));
    await Promise.all(["c", "d", "e"].map((vm) => plan.note(vm, scopes, (l) => said.push(l), 20)));
    expect(said.map((l) => /(\d+) VMs? go/.exec(l)![1])).toEqual(["2", "5"]);
  });
});
