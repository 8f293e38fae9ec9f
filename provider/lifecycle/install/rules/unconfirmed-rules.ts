// Decision table: what a deployment does with an install recorded as unconfirmed.
//   decides: planUnconfirmed (read's preview and update ask it).
//   inputs:  the stored state with its timeline, one Look now, the time.
//   answers: UnconfirmedVerdict: settle (with settled's SettleVerdict),
//            follow, or hold until the stored settle time.
//
// - settle: the look decides it (settled): installed, failed and kept, or gone.
// - follow: the server may still move it, and a wait can see that: the VM has
//   not appeared yet while the server may still create it, it is stopped
//   (the install may still start it, or remove it), or no run has seen it
//   since its stream was lost (it may be in its init script, before the
//   install's one reboot, which a follow can catch).
// - hold: it is there and runs, an earlier run saw it already, and only time
//   can settle it (the server may still remove it until the timeline's end,
//   and shows nothing that tells a VM in its init script from a finished
//   one): no wait can change that, so nothing is planned and nothing waits;
//   the first look from the stored settle time records it.
//
// Absence is evidence only after the window: a VM not listed while the
// server may still create it is an install still running, never "gone".
import type { Look } from "../../observe";
import type { LostInstall, VmState } from "../../model";
import { settled, type SettleVerdict } from "./lost-rules";

export type UnconfirmedVerdict =
  | { kind: "settle"; result: Exclude<SettleVerdict, { kind: "unconfirmed" }> }
  | { kind: "follow"; why: string }
  | { kind: "hold"; why: string; until: number };

export function planUnconfirmed(
  state: VmState & { installLost: LostInstall },
  look: Look,
  now: number,
): UnconfirmedVerdict {
  const result = settled(state, look, now);
  if (result.kind !== "unconfirmed") return { kind: "settle", result };
  const lost = state.installLost;
  switch (look.kind) {
    case "absent":
      return { kind: "follow", why: "the VM has not appeared yet, and the server may still create it" };
    case "unreadable":
      return { kind: "follow", why: `the server could not be asked (${look.error})` };
    case "disabled":
      // The server refuses to control it and lists nothing real: no wait shows more.
      return {
        kind: "hold",
        why: "it is in the server's disabled list, which shows nothing of its install",
        until: lost.settleBy,
      };
    case "other":
      // settled() answers "gone" for a VMID held by another VM: unreachable here.
      return { kind: "follow", why: "its VMID is held by another VM" };
    case "present":
      if (look.running !== true) {
        return { kind: "follow", why: "the VM is stopped: the install may still start it, or remove it" };
      }
      if (!lost.seen) {
        return {
          kind: "follow",
          why: "no run has seen the VM since its stream was lost: its install's reboot may still come",
        };
      }
      return {
        kind: "hold",
        why: "the VM runs, and nothing the server shows tells a VM in its init script from a finished one",
        until: lost.settleBy,
      };
  }
}
