// The decision table for an unconfirmed install at the next up or preview
// (planUnconfirmed): settle, follow, or hold, from the stored timeline, one
// look and the time. Pure.
import { planUnconfirmed } from "../../provider/lifecycle/install";
import type { Look } from "../../provider/lifecycle/observe";
import type { LostInstall } from "../../provider/lifecycle/model/lost-install";

const T0 = 1_000_000;
const LOST: LostInstall = {
  step: "preparation > downloading image",
  phase: "download",
  lostAt: T0,
  createBy: T0 + 300_000,
  startBy: T0 + 400_000,
  undoBy: T0 + 900_000,
  settleBy: T0 + 900_000,
  seen: false,
};
const state = (lost: Partial<LostInstall> = {}) => ({
  vmid: 101,
  vmName: "web-101",
  installState: "unconfirmed" as const,
  installLost: { ...LOST, ...lost },
});
const RUNNING: Look = { kind: "present", running: true, node: "pve1", tagged: true };
const STOPPED: Look = { kind: "present", running: false, node: "pve1", tagged: true };
const ABSENT: Look = { kind: "absent" };

test.each<[string, string, Partial<LostInstall>, Look, number]>([
  ["absent, the server may still create it", "follow", {}, ABSENT, T0 + 1_000],
  ["absent, the server can no longer create it", "settle:gone", {}, ABSENT, T0 + 300_000],
  ["absent after it was seen: removed by the server", "settle:gone", { seen: true }, ABSENT, T0 + 1_000],
  ["running, never seen by an earlier run", "follow", {}, RUNNING, T0 + 1_000],
  ["running and seen before, window open", "hold", { seen: true }, RUNNING, T0 + 1_000],
  ["running, past the time it can be removed", "settle:done", { seen: true }, RUNNING, T0 + 900_000],
  ["stopped, seen before, window open", "follow", { seen: true }, STOPPED, T0 + 1_000],
  ["stopped after the whole timeline", "settle:failed-left", { seen: true }, STOPPED, T0 + 900_000],
  ["its VMID held by another VM", "settle:gone", {}, { kind: "other", name: "db-101" }, T0 + 1_000],
  ["disabled: nothing real to see", "hold", { seen: true }, { kind: "disabled" }, T0 + 1_000],
  ["the server cannot be asked", "follow", {}, { kind: "unreadable", error: "503" }, T0 + 1_000],
])("%s -> %s", (_what, want, lost, look, now) => {
  const plan = planUnconfirmed(state(lost), look, now);
  expect(plan.kind === "settle" ? `settle:${plan.result.kind}` : plan.kind).toBe(want);
});

test("a held VM is held until the stored settle time, which the plan names", () => {
  const plan = planUnconfirmed(state({ seen: true }), RUNNING, T0 + 1_000);
  expect(plan).toMatchObject({ kind: "hold", until: LOST.settleBy });
});
