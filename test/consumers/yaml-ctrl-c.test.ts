// One Ctrl-C on a YAML program of three VMs through the resource plugin,
// while the server is still early in the installs (at least one has not
// created its VM), then `pulumi up` at once, as a user does: it succeeds,
// each VM is in state once and the server's VMs are the state's. Once the
// server has finished, the stack reads clean (a preview with
// --expect-no-changes passes) and an `up` is quick, its warnings naming one
// settle time per VM that no run moves; with the bounds shortened, the next
// `up` records every VM confirmed.
import { requestsOf, until } from "../e2e/ctrl-c";
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer, SHORT_BOUNDS } from "./harness";

jest.setTimeout(600_000);

let consumer: Consumer;
afterEach(() => consumer?.dispose());

/** The settle time each warning names, by VM label ("a-…-123 (123)"). */
function settleTimes(output: string): Map<string, Set<string>> {
  const times = new Map<string, Set<string>>();
  for (const m of output.matchAll(/VM (\S+ \(\d+\))[^\n]*?it can be settled from (\S+) at the latest/g)) {
    const set = times.get(m[1]!) ?? new Set<string>();
    set.add(m[2]!);
    times.set(m[1]!, set);
  }
  return times;
}

test("one Ctrl-C early in three installs, then up at once: it succeeds, no orphan, no duplicate; then a clean preview and a quick up", async () => {
  // Installs of about 90 s: the Ctrl-C comes during the image download.
  consumer = await newConsumer(yamlDriver("yaml-three"), { speed: 2 });
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, "gopveqemu:pollIntervalMs": "500" });
  const { sim } = consumer;

  const first = consumer.start("up");
  // Once the server has b's install (pinned VMID 171): an install journaled but not yet sent when the
  // Ctrl-C lands is waited for up to the image-download bound (test/e2e/ctrl-c.ts, pinnedInstallBegun).
  await until(() => sim.installs().some((i) => i.vmid === 171), "VM b's install on the server");
  await new Promise((r) => setTimeout(r, 3_000));
  // at least one install has not reached "creating VM"
  expect(sim.vms().length).toBeLessThan(3);
  process.kill(-first.pid, "SIGINT");
  const cancelled = await first.done;
  expect(cancelled.code).not.toBe(0);

  const t0 = Date.now();
  const next = await consumer.run("up");
  const took = (Date.now() - t0) / 1000;
  expect(next.output).not.toMatch(/no longer exists/);
  expect(next.output).not.toMatch(/--replace/);
  expect(next.code).toBe(0);
  // about one install's time (an install at this speed takes about 90 s)
  expect(took).toBeLessThan(150);
  const ids = consumer.vms().map((v) => Number(v.id));
  expect(ids).toHaveLength(3);
  expect(new Set(ids).size).toBe(3);
  expect(ids).toContain(171);
  await until(() => sim.vms().length >= 3, "the server's three VMs");
  expect(
    sim
      .vms()
      .map((v) => v.vmid)
      .sort(),
  ).toEqual([...ids].sort());
  expect(consumer.stateText()).not.toMatch(/"pending_operations":\s*\[\s*\{/);

  // The server finishes the installs; the stack reads clean, and an up is quick.
  sim.settings({ speed: 2000 });
  await sim.idle();
  const looked = await requestsOf(sim, () => consumer.run("preview")); // --expect-no-changes
  const preview = looked.result;
  expect(preview.output).not.toMatch(/error:/);
  expect(preview.code).toBe(0);
  // Quick: it asks the server what the preview asked (no wait polling an unsettled install), and changes nothing.
  const upped = await requestsOf(sim, () => consumer.run("up"));
  const quick = upped.result;
  expect(quick.code).toBe(0);
  expect(upped.writes).toEqual([]);
  expect(upped.reads).toBeLessThanOrEqual(looked.reads + 3);
  // Each VM still unconfirmed is named with one settle time, the same in every run.
  const unconfirmed = consumer.vms().filter((v) => v.outputs.installState === "unconfirmed");
  for (const [label, times] of settleTimes(next.output + preview.output + quick.output)) {
    expect([label, times.size]).toEqual([label, 1]);
  }
  for (const v of unconfirmed) {
    const at = new Date((v.outputs.installLost as { settleBy: number }).settleBy).toISOString();
    expect(preview.output + quick.output).toContain(`it can be settled from ${at} at the latest`);
  }
  // ip and password are known outputs of every VM
  for (const v of consumer.vms()) {
    expect(v.outputs.ip).toEqual(expect.stringMatching(new RegExp(`\\.${v.id}$`)));
    expect(v.outputs.password).toBeDefined();
  }

  // With the bounds shortened, the settle time is past: the next up records every VM confirmed.
  await consumer.setConfig(SHORT_BOUNDS);
  const last = await consumer.run("up");
  expect(last.code).toBe(0);
  for (const v of consumer.vms()) {
    expect(v.outputs).toMatchObject({ installComplete: true, running: true });
    expect(v.outputs.installState).toBeUndefined();
  }
  expect((await consumer.run("preview")).code).toBe(0);
});
