// The decision table of streamed update steps, row by row, and the bounds
// it is given.
import { DEFAULT_TIMING } from "../../provider/lifecycle";
import { boundMs, decideOperation, isLost } from "../../provider/lifecycle/update/step-rules";
import type { StreamReport } from "../../provider/lifecycle/update/step-rules";
import type { Look } from "../../provider/lifecycle/observe/look";

const lost = (kind: StreamReport["kind"], patch: Partial<StreamReport> = {}): StreamReport => ({
  kind,
  ended: "lost",
  powerStepDone: false,
  ...(kind === "migrate" ? { targetNode: "pve2" } : {}),
  ...patch,
});
const present = (running: boolean | undefined, node = "pve1"): Look => ({
  kind: "present",
  running,
  node,
  tagged: true,
});

test("which stream ends are a question to the VM, and which are the server's answer", () => {
  expect(["connection-lost", "idle-timeout", "overall-timeout", "no-completion"].every((s) => isLost(s as never))).toBe(
    true,
  );
  expect(["error-event", "bare-message", "aborted"].some((s) => isLost(s as never))).toBe(false);
});

describe("a lost migration", () => {
  test("the list shows the target node: applied", () => {
    expect(decideOperation(lost("migrate"), present(false, "pve2"), false)).toEqual({
      kind: "applied",
      why: "the VM is on node pve2",
    });
  });
  test("still on the old node: look again, and a failure once the bound has passed", () => {
    expect(decideOperation(lost("migrate"), present(false, "pve1"), false).kind).toBe("wait");
    expect(decideOperation(lost("migrate"), present(false, "pve1"), true)).toEqual({
      kind: "failed",
      why: "the stream was lost, and the VM is on node pve1, not pve2",
    });
  });
});

describe("a lost start", () => {
  test("the VM runs: applied, whatever step the stream had reached", () => {
    expect(decideOperation(lost("start"), present(true), false).kind).toBe("applied");
    expect(decideOperation(lost("start", { powerStepDone: true }), present(true), false).kind).toBe("applied");
  });
  test("stopped (or not readable): look again; after the bound, a failure that says what the VM shows", () => {
    expect(decideOperation(lost("start"), present(false), false).kind).toBe("wait");
    expect(decideOperation(lost("start"), present(false), true)).toEqual({
      kind: "failed",
      why: "the stream was lost, and its status is stopped",
    });
    expect(decideOperation(lost("start"), present(undefined), true).why).toBe(
      "the stream was lost, and its status is not readable",
    );
  });
});

describe("a lost reboot", () => {
  test("after the server reported the reboot, the VM running is applied", () => {
    expect(decideOperation(lost("reboot", { powerStepDone: true }), present(true), false).kind).toBe("applied");
  });
  test("before it, a running VM cannot show whether it rebooted: a failure, so the next up reboots again", () => {
    const v = decideOperation(lost("reboot"), present(true), false);
    expect(v.kind).toBe("failed");
    expect(v.why).toMatch(/cannot show whether it rebooted/);
  });
  test("stopped mid-reboot: look again", () => {
    expect(decideOperation(lost("reboot", { powerStepDone: true }), present(false), false).kind).toBe("wait");
    expect(decideOperation(lost("reboot"), present(false), false).kind).toBe("wait");
  });
  test("seen stopped and then running again: the reboot happened, though the server never said so", () => {
    const v = decideOperation(lost("reboot", { stoppedSeen: true }), present(true), false);
    expect(v).toEqual({ kind: "applied", why: "the VM was seen stopped and running again" });
  });
});

describe("rows shared by every step", () => {
  const reports = [lost("start"), lost("reboot"), lost("migrate"), { ...lost("start"), ended: "success" as const }];
  test.each(reports)("gone, reused or disabled: failed at once (%o)", (report) => {
    for (const look of [{ kind: "absent" }, { kind: "other", name: "x-101" }, { kind: "disabled" }] as Look[]) {
      expect(decideOperation(report, look, false).kind).toBe("failed");
    }
  });
  test.each(reports)("unreadable: look again until the bound, then a failure quoting why (%o)", (report) => {
    const look: Look = { kind: "unreadable", error: "502 Bad Gateway" };
    expect(decideOperation(report, look, false).kind).toBe("wait");
    const v = decideOperation(report, look, true);
    expect(v).toMatchObject({ kind: "failed" });
    expect(v.why).toContain("502 Bad Gateway");
  });
});

test("a reported success the VM does not show is not taken on the stream's word", () => {
  const ok: StreamReport = { kind: "start", ended: "success", powerStepDone: true };
  expect(decideOperation(ok, present(false), false).kind).toBe("wait");
  expect(decideOperation(ok, present(false), true).why).toBe("reported success, but its status is stopped");
  const moved: StreamReport = { kind: "migrate", ended: "success", powerStepDone: false, targetNode: "pve2" };
  expect(decideOperation(moved, present(false, "pve1"), true).why).toBe(
    "reported success, but the VM is on node pve1, not pve2",
  );
});

test("bounds: what the server's remaining work can take, capped by followTimeoutMs", () => {
  const t = DEFAULT_TIMING;
  expect(boundMs({ kind: "start", ended: "success", powerStepDone: true }, t)).toBe(t.confirmTimeoutMs);
  expect(boundMs(lost("start", { powerStepDone: true }), t)).toBe(t.confirmTimeoutMs);
  expect(boundMs(lost("start"), t)).toBe(t.commandBoundMs);
  expect(boundMs(lost("reboot"), t)).toBe(t.shutdownTimeoutMs + t.commandBoundMs);
  expect(boundMs(lost("migrate"), t)).toBe(t.migrateBoundMs);
  expect(boundMs(lost("migrate"), { ...t, followTimeoutMs: 60_000 })).toBe(60_000);
  expect(boundMs(lost("reboot"), { ...t, followTimeoutMs: 5_000 })).toBe(5_000);
});
