// Settling an install recorded as unconfirmed (installState "unconfirmed":
// its stream was lost and its outcome was not known in time), from one
// observation now, for read (refresh) and update (the next up). The rules are
// decide.ts's `settle`; this maps an observation to them and the verdict to
// the state:
// - done: the server can no longer remove the VM and it runs -> installed;
// - failed-left: everything is over and the VM stays stopped -> a failed install (kept);
// - gone: the server removed it, or never made it -> drop from state;
// - unconfirmed: not known yet -> unchanged (the next refresh or up asks again).
import { settle } from "./decide";
import type { Seen } from "./decide";
import type { Observation } from "./observe";
import type { VmState } from "./state";

export type Settled =
  { kind: "done" | "failed-left" | "unconfirmed"; state: VmState; why: string } | { kind: "gone"; why: string };

/** What one observation says, in the decision table's terms. */
function seenOf(o: Observation): Seen {
  if (!o.listed) return { kind: "absent" };
  if (!o.nameMatches) return { kind: "other", name: o.entry!.name };
  return { kind: "present", running: o.running === true, tagged: o.entry!.os !== "" };
}

/** `state` is unconfirmed (installState "unconfirmed" with installLost); others are returned as they are. */
export function settleState(state: VmState, o: Observation, now: number): Settled {
  const lost = state.installLost;
  if (state.installState !== "unconfirmed" || lost === undefined) {
    return { kind: "done", state, why: "the install was not unconfirmed" };
  }
  const v = settle(lost, seenOf(o), now);
  const { installState: _s, installLost: _l, ...rest } = state;
  switch (v.kind) {
    case "gone":
      return { kind: "gone", why: v.why };
    case "done":
      return { kind: "done", state: { ...rest, installComplete: true, installProblem: undefined }, why: v.why };
    case "failed-left":
      return { kind: "failed-left", state: { ...rest, installComplete: false, installProblem: v.why }, why: v.why };
    default:
      return {
        kind: "unconfirmed",
        state: { ...state, installLost: { ...lost, seen: lost.seen || o.listed } },
        why: v.why,
      };
  }
}
