import { InstallGates } from "../../provider/lifecycle/core/install-gates";

/** One process's gates, as the provider core holds them: a fresh one per test. */
let gates = new InstallGates();
beforeEach(() => {
  gates = new InstallGates();
});
const acquireInstallSlot: InstallGates["acquire"] = (...args) => gates.acquire(...args);
const vmidsInFlight = (k: string): Set<number> => gates.inFlight(k);

let n = 0;
const key = () => `test://gate-${++n}`;
const tick = () => new Promise((r) => setImmediate(r));

/** Whether an auto install asking now gets its slot at once (nobody holds it, nobody queues before it). */
async function slotFree(k: string): Promise<boolean> {
  let got = false;
  const ticket = acquireInstallSlot(k, undefined).then((t) => ((got = true), t));
  await tick();
  if (got) (await ticket).finish();
  else void ticket.then((t) => t.finish());
  return got;
}

describe("vmid gate", () => {
  test("auto installs run one at a time until each has created its VM", async () => {
    const k = key();
    const a = await acquireInstallSlot(k, undefined);
    let bGot = false;
    const b = acquireInstallSlot(k, undefined).then((t) => ((bGot = true), t));
    await tick();
    expect(bGot).toBe(false);
    a.vmidKnown(101);
    await tick();
    expect(bGot).toBe(false); // knowing the VMID is not enough for another auto install
    a.created();
    const tb = await b;
    expect(bGot).toBe(true);
    expect(vmidsInFlight(k)).toEqual(new Set([101]));
    a.finish();
    tb.finish();
    expect(vmidsInFlight(k)).toEqual(new Set());
  });

  test("pinned installs run in parallel with each other", async () => {
    const k = key();
    const p1 = await acquireInstallSlot(k, 120);
    const p2 = await acquireInstallSlot(k, 121);
    expect(vmidsInFlight(k)).toEqual(new Set([120, 121]));
    p1.finish();
    p2.finish();
  });

  test("an auto install waits for pinned installs before their VM creation", async () => {
    const k = key();
    const p = await acquireInstallSlot(k, 120);
    let got = false;
    const a = acquireInstallSlot(k, undefined).then((t) => ((got = true), t));
    await tick();
    expect(got).toBe(false);
    p.created();
    (await a).finish();
    expect(got).toBe(true);
    p.finish();
  });

  test("a pinned install waits for an auto install until its VMID is known and different", async () => {
    const k = key();
    const a = await acquireInstallSlot(k, undefined);
    let got120 = false;
    let got101 = false;
    const p120 = acquireInstallSlot(k, 120).then((t) => ((got120 = true), t));
    const p101 = acquireInstallSlot(k, 101).then((t) => ((got101 = true), t));
    await tick();
    expect([got120, got101]).toEqual([false, false]);
    a.vmidKnown(101);
    await tick();
    expect([got120, got101]).toEqual([true, false]); // 101 is the auto install's pick
    a.created();
    await tick();
    expect(got101).toBe(true);
    (await p120).finish();
    (await p101).finish();
    a.finish();
  });

  test("finish releases even without created (the install failed early); idempotent", async () => {
    const k = key();
    const a = await acquireInstallSlot(k, undefined);
    const b = acquireInstallSlot(k, undefined);
    a.finish();
    a.finish();
    a.created();
    (await b).finish();
    expect(await slotFree(k)).toBe(true);
  });

  test("waiters are served in arrival order", async () => {
    const k = key();
    const first = await acquireInstallSlot(k, undefined);
    const order: number[] = [];
    const waiters = [1, 2, 3].map((i) => acquireInstallSlot(k, undefined).then((t) => (order.push(i), t)));
    for (let i = 0; i < 3; i++) {
      (i === 0 ? first : await waiters[i - 1]!).finish();
      await tick();
    }
    (await waiters[2]!).finish();
    expect(order).toEqual([1, 2, 3]);
  });

  test("endpoints are independent", async () => {
    const [k1, k2] = [key(), key()];
    const a = await acquireInstallSlot(k1, undefined);
    let bGot = false;
    const b = acquireInstallSlot(k2, undefined).then((t) => ((bGot = true), t));
    await tick();
    // An auto install on one endpoint holds nobody back on another.
    expect(bGot).toBe(true);
    a.finish();
    (await b).finish();
  });

  test("a cancelled waiter leaves the queue", async () => {
    const k = key();
    const a = await acquireInstallSlot(k, undefined);
    const ac = new AbortController();
    const b = acquireInstallSlot(k, undefined, ac.signal);
    ac.abort();
    await expect(b).rejects.toThrow(/cancelled while waiting/);
    a.finish();
    // Had the cancelled waiter stayed queued, the slot would have gone to it, and to nobody after it.
    expect(await slotFree(k)).toBe(true);
  });
});

test("two processes' gates are apart: a slot held in one does not hold the other", async () => {
  const k = key();
  const held = await acquireInstallSlot(k, undefined);
  const other = new InstallGates();
  const elsewhere = await other.acquire(k, undefined);
  expect(other.inFlight(k)).toEqual(new Set());
  elsewhere.finish();
  held.finish();
});
