// An install whose stream was lost before the server could no longer undo
// it is recorded as `installState: "unconfirmed"` with its timeline
// (decide.ts). Every later look at the VM (refresh, update) settles it with
// the create side's rule (`settle`): installed once the server can no longer
// remove it, failed when it stays stopped past the last step that would start
// it, still unconfirmed otherwise. A VM that is gone never gets here: read
// and update end on an unlisted or reused VMID first.
import type { Reporter } from "./context";
import { settle } from "./decide";
import type { Seen } from "./decide";
import type { Observation } from "./observe";
import { dropUndefined } from "./state";
import type { VmState } from "./state";

/** An observation as the install rules see it. */
export function installSeen(o: Observation): Seen {
  if (!o.listed || o.entry === undefined) return { kind: "absent" };
  if (!o.nameMatches) return { kind: "other", name: o.entry.name };
  if (o.disabled) return { kind: "unreadable", error: "the VM is in the server's disabled list" };
  return { kind: "present", running: o.running === true, tagged: o.entry.os !== "" };
}

/** The state after settling its unconfirmed install from this look (unchanged when there is none). */
export function settleInstall(state: VmState, o: Observation, now: number, reporter: Reporter, label: string): VmState {
  const t = state.installLost;
  if (state.installState !== "unconfirmed" || t === undefined) return state;
  const seen = installSeen(o);
  const verdict = settle(t, seen, now);
  switch (verdict.kind) {
    case "done":
      reporter.info(`VM ${label}: its install is settled as complete (${verdict.why})`);
      return dropUndefined({
        ...state,
        installComplete: true,
        installProblem: undefined,
        installState: undefined,
        installLost: undefined,
      });
    case "failed-left":
    case "gone":
      reporter.warn(
        `VM ${label}: its install is settled as failed (${verdict.why}); \`pulumi up --replace\` reinstalls it`,
      );
      return dropUndefined({
        ...state,
        installComplete: false,
        installProblem: verdict.why,
        installState: undefined,
        installLost: undefined,
      });
    case "unconfirmed":
      reporter.info(`VM ${label}: its install is still unconfirmed (${verdict.why})`);
      return { ...state, installLost: { ...t, seen: t.seen || seen.kind === "present" } };
  }
}
