// The downtime budget of one deployment: at most `limit` VMs of a group (and
// of a server, under a cap) hold a place at once, the rest wait in order, and
// a failure stops the rollout there: the waiting and every later VM are
// refused without a place, naming the VM that failed.
import { DowntimeBudget } from "../../provider/lifecycle/core/downtime-budget";
import type { DowntimeRules } from "../../provider/lifecycle/core/downtime-budget";
import { CODES, LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";

const SERVER = { key: "http://127.0.0.1:1", endpoint: "http://127.0.0.1:1" };
const OTHER = { key: "http://127.0.0.1:2", endpoint: "http://127.0.0.1:2" };
const WEB3: DowntimeRules = { budgets: { web: 3 } };

/** Lets every settled promise's callbacks run. */
const tick = () => new Promise((r) => setImmediate(r));

function enterAll(budget: DowntimeBudget, names: string[], rules: DowntimeRules, group = "web", server = SERVER) {
  const granted: string[] = [];
  const places = names.map((vm) =>
    budget.enter({ id: vm, vm, group, server }, rules).then((place) => {
      granted.push(vm);
      return place!;
    }),
  );
  return { granted, places };
}

describe("places in a group's budget", () => {
  test("3 of 12 hold a place at once; each leave lets the next in, in arrival order", async () => {
    const budget = new DowntimeBudget();
    const names = Array.from({ length: 12 }, (_, i) => `vm${i + 1}`);
    const { granted, places } = enterAll(budget, names, WEB3);
    await tick();
    expect(granted).toEqual(["vm1", "vm2", "vm3"]);
    (await places[1]!).leave();
    await tick();
    expect(granted).toEqual(["vm1", "vm2", "vm3", "vm4"]);
    for (const p of places.slice(0, 12)) {
      (await p).leave();
      await tick();
    }
    expect(granted).toEqual(names);
  });

  test("a leave twice frees one place only", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 1 } };
    const { granted, places } = enterAll(budget, ["a", "b", "c"], rules);
    await tick();
    const a = await places[0]!;
    a.leave();
    a.leave();
    await tick();
    expect(granted).toEqual(["a", "b"]);
  });

  test("no budget for the group and no server cap: no place, nothing waits", async () => {
    const budget = new DowntimeBudget();
    await expect(budget.enter({ id: "x", vm: "x", group: "db", server: SERVER }, WEB3)).resolves.toBeUndefined();
    await expect(budget.enter({ id: "y", vm: "y", server: SERVER }, WEB3)).resolves.toBeUndefined();
  });

  test("groups are apart: a full group does not hold another back", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 1, db: 1 } };
    const web = enterAll(budget, ["w1", "w2"], rules, "web");
    const db = enterAll(budget, ["d1"], rules, "db");
    await tick();
    expect([...web.granted, ...db.granted]).toEqual(["w1", "d1"]);
  });

  test("a waiting VM is told what it waits for", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 2 } };
    enterAll(budget, ["a", "b"], rules);
    await tick();
    const said: string[] = [];
    void budget.enter({ id: "c", vm: "c", group: "web", server: SERVER }, rules, undefined, (why) => said.push(why));
    expect(said).toEqual(['downtime group "web" has 2 of 2 down (a, b)']);
  });

  test("a cancelled wait leaves the queue and takes no place", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 1 } };
    const { granted, places } = enterAll(budget, ["a"], rules);
    const abort = new AbortController();
    const waiting = budget.enter({ id: "b", vm: "b", group: "web", server: SERVER }, rules, abort.signal);
    const after = enterAll(budget, ["c"], rules);
    abort.abort();
    await expect(waiting).rejects.toMatchObject({ code: CODES.cancelled });
    (await places[0]!).leave();
    await tick();
    expect([...granted, ...after.granted]).toEqual(["a", "c"]);
  });
});

describe("a failure stops the rollout", () => {
  test("the waiting VMs are refused and named; later ones too; those holding a place go on", async () => {
    const budget = new DowntimeBudget();
    const { granted, places } = enterAll(budget, ["v1", "v2", "v3", "v4", "v5"], WEB3);
    const outcomes = places.map((p) =>
      p.then(
        () => "granted",
        (e: LifecycleError) => e,
      ),
    );
    await tick();
    expect(granted).toEqual(["v1", "v2", "v3"]);
    const failed = await places[1]!;
    expect(failed.stop("start failed")).toEqual(["v4", "v5"]);
    const refused = (await Promise.all(outcomes)).slice(3) as LifecycleError[];
    for (const [i, err] of refused.entries()) {
      expect(err).toBeInstanceOf(LifecycleError);
      expect(err.code).toBe(CODES.heldBack);
      expect(err.message).toBe(
        `VM v${i + 4} was not shut down: the rollout of downtime group "web" stopped when VM v2 failed (start failed); ` +
          `v${i + 4} is as it was, running and unchanged. Once VM v2 is fixed, \`pulumi up\` goes on with the rest`,
      );
    }
    await expect(budget.enter({ id: "v6", vm: "v6", group: "web", server: SERVER }, WEB3)).rejects.toMatchObject({
      code: CODES.heldBack,
      message: expect.stringContaining("stopped when VM v2 failed"),
    });
    // v1 and v3 still hold their places and give them back as usual
    (await places[0]!).leave();
    (await places[2]!).leave();
  });

  test("only the failed VM's group stops", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 1, db: 1 } };
    const web = await budget.enter({ id: "w1", vm: "w1", group: "web", server: SERVER }, rules);
    web!.stop("set cpu failed");
    await expect(budget.enter({ id: "d1", vm: "d1", group: "db", server: SERVER }, rules)).resolves.toBeDefined();
  });
});

describe("a cap for all VMs of one server", () => {
  test("counts every group and none; another server is apart", async () => {
    const budget = new DowntimeBudget();
    const rules: DowntimeRules = { budgets: { web: 5 }, perServer: 2 };
    const granted: string[] = [];
    const enter = (vm: string, group: string | undefined, server = SERVER) =>
      budget.enter({ id: vm, vm, ...(group ? { group } : {}), server }, rules).then((p) => (granted.push(vm), p!));
    const a = enter("a", "web");
    void enter("b", undefined);
    void enter("c", "web");
    void enter("d", undefined, OTHER);
    await tick();
    expect(granted.sort()).toEqual(["a", "b", "d"]);
    (await a).leave();
    await tick();
    expect(granted.sort()).toEqual(["a", "b", "c", "d"]);
  });

  test("a failure under the cap stops the server's rollout, whatever the group", async () => {
    const budget = new DowntimeBudget();
    const rules: DowntimeRules = { budgets: {}, perServer: 1 };
    const a = await budget.enter({ id: "a", vm: "a", server: SERVER }, rules);
    const b = budget.enter({ id: "b", vm: "b", group: "web", server: SERVER }, rules);
    expect(a!.stop("start failed")).toEqual(["b"]);
    await expect(b).rejects.toMatchObject({
      code: CODES.heldBack,
      message: expect.stringContaining(`the rollout of the VMs of ${SERVER.endpoint} stopped when VM a failed`),
    });
    await expect(budget.enter({ id: "c", vm: "c", server: OTHER }, rules)).resolves.toBeDefined();
  });

  test("a VM refused by the server's stop gives its group place back", async () => {
    const budget = new DowntimeBudget();
    const rules: DowntimeRules = { budgets: { web: 1 }, perServer: 1 };
    const a = await budget.enter({ id: "a", vm: "a", group: "db", server: SERVER }, rules);
    // b takes web's place, then waits for the server's
    const b = budget.enter({ id: "b", vm: "b", group: "web", server: SERVER }, rules);
    await tick();
    a!.stop("failed");
    await expect(b).rejects.toMatchObject({ code: CODES.heldBack });
    // web's one place is free again: a VM of web on another server gets it at once
    await expect(budget.enter({ id: "c", vm: "c", group: "web", server: OTHER }, rules)).resolves.toBeDefined();
  });
});

describe("edges", () => {
  test("a group named like an object's own property has no budget unless one is set", async () => {
    const budget = new DowntimeBudget();
    for (const group of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
      await expect(
        budget.enter({ id: group, vm: group, group, server: SERVER }, { budgets: {} }),
      ).resolves.toBeUndefined();
    }
    const rules = { budgets: Object.fromEntries([["constructor", 1]]) };
    const first = await budget.enter({ id: "a", vm: "a", group: "constructor", server: SERVER }, rules);
    expect(first).toBeDefined();
  });

  test("a VM holding its group's place while it waits for the server's is refused when the group stops, and named", async () => {
    const budget = new DowntimeBudget();
    const rules: DowntimeRules = { budgets: { web: 2 }, perServer: 1 };
    const a = await budget.enter({ id: "a", vm: "a", group: "web", server: SERVER }, rules);
    const d = await budget.enter({ id: "d", vm: "d", group: "db", server: OTHER }, rules);
    // c takes web's second place, then waits for OTHER's one place, which d holds
    const c = budget.enter({ id: "c", vm: "c", group: "web", server: OTHER }, rules);
    await tick();
    expect(a!.stop("start failed")).toEqual(["c"]);
    await expect(c).rejects.toMatchObject({
      code: CODES.heldBack,
      message: expect.stringContaining("VM c was not shut down"),
    });
    // when d is done, OTHER's place is free: nobody of web takes it
    d!.leave();
    await expect(budget.enter({ id: "e", vm: "e", group: "db", server: OTHER }, rules)).resolves.toBeDefined();
  });

  test("two VMs with the same label on two servers are two VMs", async () => {
    const budget = new DowntimeBudget();
    const rules = { budgets: { web: 2 } };
    const one = await budget.enter(
      { id: `${SERVER.key}/101`, vm: "web-101 (101)", group: "web", server: SERVER },
      rules,
    );
    await budget.enter({ id: `${OTHER.key}/101`, vm: "web-101 (101)", group: "web", server: OTHER }, rules);
    const third = budget.enter({ id: `${SERVER.key}/102`, vm: "web-102 (102)", group: "web", server: SERVER }, rules);
    let granted = false;
    void third.then(() => (granted = true));
    await tick();
    expect(granted).toBe(false);
    one!.leave();
    await tick();
    expect(granted).toBe(true);
  });

  test("a deployment already cancelled takes no place, even a free one", async () => {
    const budget = new DowntimeBudget();
    const abort = new AbortController();
    abort.abort();
    await expect(
      budget.enter({ id: "a", vm: "a", group: "web", server: SERVER }, WEB3, abort.signal),
    ).rejects.toMatchObject({ code: CODES.cancelled });
    const granted = enterAll(budget, ["b", "c", "d"], WEB3);
    await tick();
    expect(granted.granted).toEqual(["b", "c", "d"]);
  });
});
