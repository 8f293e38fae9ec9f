// update on a virtual clock against the in-memory server, with the default
// timing unless a case says otherwise: the real server's blocking shutdown,
// lost streams settled by watching the VM, node-local status, cancellation.
import { update, DEFAULT_TIMING } from "../../provider/lifecycle";
import { PartialUpdateError } from "../../provider/lifecycle/model/partial-error";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { duration } from "../../provider/lifecycle/core/labels";
import { setup } from "./fake-setup";
import type { Setup } from "./fake-setup";
import { inputs, stateOf } from "./fixtures";

const STATE: VmState = stateOf(inputs());
const calls = (s: Setup): string[] => s.server.calls.map((c) => c.call).filter((c) => c !== "list" && c !== "status");
const up = (s: Setup, news: VmInputs) => update("101", STATE, news, s.ctx);
const partialOf = async (p: Promise<unknown>): Promise<PartialUpdateError> => {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PartialUpdateError);
  return err as PartialUpdateError;
};

test("a shutdown that takes 5 minutes (the real server answers once the guest is off) succeeds with the default timing", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "blocking", takesMs: 5 * 60_000 };
  const next = await up(s, inputs({ cpu: 4 }));
  expect(next).toMatchObject({ cpu: 4, running: true });
  expect(calls(s)).toEqual(["shutdown", "setCpu", "start"]);
  const waiting = s.lines.filter((l) => l.includes("to shut down ("));
  expect(waiting).toHaveLength(9);
  expect(waiting[0]).toBe("info waiting for VM web-101 (101) to shut down (30 s)");
  expect(waiting[8]).toBe("info waiting for VM web-101 (101) to shut down (4.5 min)");
  expect(s.lines.some((l) => l.startsWith("warn"))).toBe(false);
});

test("a shutdown that outlasts shutdownTimeoutMs (10 minutes by default) is abandoned for a hard stop, and the update goes on", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "hang" };
  const next = await up(s, inputs({ cpu: 4 }));
  expect(next).toMatchObject({ cpu: 4, running: true });
  expect(calls(s)).toEqual(["shutdown", "stop", "setCpu", "start"]);
  expect(s.server.calls.find((c) => c.call === "stop")!.at - s.clock.start).toBe(600_000);
  expect(s.lines).toContain("warn VM web-101 (101) had to be stopped hard");
});

test("the VM runs on another node (status answers 500 exit status 2): the list's flag plans the update", async () => {
  const s = setup();
  s.server.vms.get(101)!.node = "pve2";
  const next = await update("101", stateOf(inputs({ node: "pve2" })), inputs({ node: "pve2", cpu: 3 }), s.ctx);
  expect(calls(s)).toEqual(["shutdown", "setCpu", "start"]);
  expect(next).toMatchObject({ cpu: 3, node: "pve2", running: true });
});

describe("a lost migration stream", () => {
  test("the list shows the target node: applied, with a warning that the stream was lost, and the update goes on", async () => {
    const s = setup();
    s.server.streamFaults.set("migrate", { shape: "connection-lost", applies: true, afterMs: 30_000 });
    const next = await up(s, inputs({ node: "pve2" }));
    expect(next).toMatchObject({ node: "pve2", running: true });
    expect(calls(s)).toEqual(["shutdown", "migrate", "start"]);
    const warns = s.lines.filter((l) => l.startsWith("warn"));
    expect(warns[0]).toMatch(/^warn VM web-101 \(101\): the migrate stream was lost \(.*\); the server carries on/);
    expect(warns[1]).toBe(
      "warn VM web-101 (101): the migrate was applied (the VM is on node pve2), though its stream was lost",
    );
  });

  test("a migration that takes minutes after its stream was lost: an info line every 30 s while watching", async () => {
    const s = setup();
    s.server.streamFaults.set("migrate", { shape: "connection-lost", applies: true, afterMs: 95_000 });
    const next = await up(s, inputs({ node: "pve2" }));
    expect(next.node).toBe("pve2");
    expect(s.lines.filter((l) => l.includes("to show the migrate"))).toEqual(
      ["30 s", "60 s", "90 s"].map(
        (t) =>
          `info waiting for VM web-101 (101) to show the migrate (${t}): the VM is on node pve1, not pve2 (still migrating?)`,
      ),
    );
  });

  test("the VM stays on the old node: a partial update after followTimeoutMs, true to the VM, and it is started again", async () => {
    const s = setup({ followTimeoutMs: 300_000 });
    s.server.streamFaults.set("migrate", { shape: "idle-timeout", applies: false });
    const p = await partialOf(up(s, inputs({ node: "pve2" })));
    expect(p.reasons[0]).toBe(
      'updating VM web-101 (101) failed at "migrate pve1 -> pve2": the stream was lost, and the VM is on node pve1, not pve2 after 5 min',
    );
    expect(p.state).toMatchObject({ node: "pve1", running: true });
    expect(p.applied).toEqual([
      "shut down (to change node (the server refuses while it runs))",
      "start (to bring the VM back after the failed step)",
    ]);
    expect(s.server.vms.get(101)).toMatchObject({ node: "pve1", running: true });
  });
});

describe("a lost start stream", () => {
  test("the VM comes up meanwhile: applied", async () => {
    const s = setup();
    s.server.vms.get(101)!.running = false;
    s.server.streamFaults.set("start", { shape: "connection-lost", applies: true, afterMs: 20_000 });
    const next = await update("101", stateOf(inputs({ running: false })), inputs(), s.ctx);
    expect(next.running).toBe(true);
    expect(s.clock.elapsed()).toBeGreaterThanOrEqual(20_000);
    expect(s.clock.elapsed()).toBeLessThan(DEFAULT_TIMING.commandBoundMs);
  });

  test("it never runs: a partial update once qm start cannot be running any more; the state says stopped", async () => {
    const s = setup();
    s.server.vms.get(101)!.running = false;
    s.server.streamFaults.set("start", { shape: "connection-lost", applies: false });
    const p = await partialOf(update("101", stateOf(inputs({ running: false })), inputs(), s.ctx));
    expect(p.reasons[0]).toMatch(
      /failed at "start \(running is true\)": the stream was lost, and its status is stopped/,
    );
    // given up once qm start can no longer be running (one command's bound), not later
    expect(p.reasons[0]).toMatch(new RegExp(`after ${duration(DEFAULT_TIMING.commandBoundMs)}$`));
    expect(p.state.running).toBe(false);
  });

  test("a definite failure stays a failure, and the state says what the VM shows (it runs: SSH never came up)", async () => {
    const s = setup();
    s.server.streamFaults.set("start", {
      shape: "error-event",
      applies: true,
      serverMessage: "[-] failed to connect to VM via SSH: [-] SSH timeout",
    });
    const p = await partialOf(up(s, inputs({ cpu: 4 })));
    expect(p.reasons[0]).toMatch(/failed at "start \(after changing cpu\)": .*SSH timeout/);
    expect(p.state).toMatchObject({ cpu: 4, running: true });
  });
});

test("a lost reboot before the server reported it: a partial update that keeps the old triggers (the next up reboots)", async () => {
  const s = setup();
  const old = stateOf(inputs({ rebootTriggers: ["a"] }));
  s.server.streamFaults.set("reboot", { shape: "connection-lost", applies: true });
  const p = await partialOf(update("101", old, inputs({ rebootTriggers: ["b"] }), s.ctx));
  expect(p.reasons[0]).toMatch(/cannot show whether it rebooted/);
  expect(p.state.inputs?.rebootTriggers).toEqual(["a"]);
  expect(p.state.running).toBe(true);
});

describe("cancellation", () => {
  test("during the blocking shutdown, nothing applied yet: the cancellation itself is thrown", async () => {
    const ac = new AbortController();
    const s = setup({}, ac.signal);
    s.server.shutdownMode = { mode: "hang" };
    void s.clock.after(45_000).then(() => ac.abort());
    const err = await up(s, inputs({ cpu: 4 })).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(PartialUpdateError);
    expect((err as Error).message).toMatch(/cancelled/);
    expect(calls(s)).toEqual(["shutdown"]);
  });

  test("while reading the VM's status: rethrown, not taken for an unreadable status", async () => {
    const ac = new AbortController();
    const s = setup({}, ac.signal);
    // stopped, so that the first look asks `status` (a running VM is the list's word alone)
    s.server.vms.get(101)!.running = false;
    const client = s.ctx.client({ endpoint: "x" });
    const status = client.status.bind(client);
    client.status = async (vmid, opts) => {
      ac.abort();
      await status(vmid, opts);
      throw new Error("GET /api/vm/101/status was cancelled");
    };
    await expect(up(s, inputs({ cpu: 4 }))).rejects.toThrow("GET /api/vm/101/status was cancelled");
    expect(calls(s)).toEqual([]);
  });

  test("after a step was applied: a partial update with the applied steps, and no recovery attempted", async () => {
    const ac = new AbortController();
    const s = setup({}, ac.signal);
    s.server.shutdownMode = { mode: "blocking", takesMs: 1_000 };
    const client = s.ctx.client({ endpoint: "x" });
    client.setCpu = async () => {
      ac.abort();
      throw new Error("POST /api/vm/101/set/cpu was cancelled");
    };
    const p = await partialOf(up(s, inputs({ cpu: 4 })));
    expect(p.applied).toEqual(["shut down (to change cpu (the server refuses while it runs))"]);
    expect(p.state.running).toBe(false);
    expect(calls(s)).toEqual(["shutdown"]);
  });
});
