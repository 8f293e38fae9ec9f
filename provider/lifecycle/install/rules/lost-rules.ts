// Decision table: what became of an install whose stream was lost.
//   decides: decideLost, one round of a follow (restartVerdict is asked
//            first); remember, what one look adds to the follow's memory;
//            settled, an unconfirmed install from one look, without memory.
//   inputs:  the install's timeline (LostInstall), one Look now, what
//            earlier looks showed (FollowMemory), the time.
//   answers: LostVerdict (done, partial, failed, follow, unknown; never
//            retry, which only FailureVerdict gives); settled: SettleVerdict.
//
// Success is recorded only once the server can no longer undo it:
// it destroys a half-made VM when the disk import, the initialisation or the
// SSH initialisation fails, so "the VM runs" proves nothing until the time
// those steps can still take has passed, or until the VM was seen through
// its one reboot (which comes only after the SSH initialisation succeeded).
// Where the outcome cannot be known in time, the VM is recorded as
// unconfirmed with its timeline, and the next refresh or up settles it.
import { phaseIndex } from "../../../client";
import type { Phase } from "../../../client";
import { duration } from "../../core";
import { exists, runs } from "../../observe";
import type { Look } from "../../observe";
import type { LostInstall, VmState } from "../../model";
import { restartVerdict } from "./restart-rules";
import type { LostVerdict } from "./verdicts";

/** The phase the server has reached at least, by what the VM shows. */
export function phaseShown(look: Look): Phase | undefined {
  if (!exists(look)) return undefined;
  if (runs(look)) return "waitReady"; // only `qm start` runs it
  // The OS tag is set while initialising; a disabled VM lists the tag "-".
  const tagged = look.kind === "disabled" || look.tagged;
  return tagged ? "initConfig" : "importDisk";
}

// ---- after a lost stream --------------------------------------------------------------

/**
 * What a follow remembers across its looks. A name of its own, not a Look:
 * no view of the VM at one moment, but what several looks added up to
 * (remember), which the reboot rule and the stays-stopped rule need, and
 * which the power watch of a stream still read hands to the follow.
 */
export interface FollowMemory {
  /** the VM was seen since the stream was lost */
  seen: boolean;
  /** since when it has been seen stopped without a break */
  stoppedSince?: number;
  /** it was seen running (only `qm start` runs it: the install was past its configuration then) */
  ran?: boolean;
  /** it was seen stopped after it had run: the one reboot, or the clean-up after a failure */
  stoppedAfterRun?: boolean;
  /**
   * running, then stopped, then running again: the install's one `qm reboot`,
   * which the server runs only after the SSH initialization succeeded, and
   * after which nothing removes the VM. (A clean-up stops it and destroys it.)
   */
  rebooted?: boolean;
  /**
   * When the server's listener was found gone (connections refused) right
   * after the stream's connection ended, before it answered anything: its
   * process died then, and with it the install, which nothing drives since.
   */
  restartedAt?: number;
}

/**
 * What one look adds to the follow's memory. Only a definite stop counts for
 * the reboot rule (a power state that could not be read is no stop); a
 * disabled VM lists no power state at all.
 */
export function remember(mem: FollowMemory, look: Look, now: number): FollowMemory {
  if (!exists(look)) return mem;
  if (runs(look)) {
    return {
      seen: true,
      ran: true,
      stoppedAfterRun: mem.stoppedAfterRun,
      rebooted: mem.rebooted || mem.stoppedAfterRun,
      ...(mem.restartedAt !== undefined ? { restartedAt: mem.restartedAt } : {}),
    };
  }
  const stopped = look.kind === "present" && look.running === false;
  return {
    ...mem,
    seen: true,
    stoppedSince: mem.stoppedSince ?? now,
    stoppedAfterRun: mem.stoppedAfterRun || (stopped && mem.ran === true),
  };
}

/**
 * One round of following a lost install: decide from one look, or follow on.
 * A disabled VM lists nothing real: the rules take it as a VM that exists and
 * does not run.
 */
export function decideLost(
  t: LostInstall,
  look: Look,
  mem: FollowMemory,
  now: number,
  end: { capAt: number; vmidKnown: boolean; grace: number },
): LostVerdict {
  return (
    restartVerdict(t, look, mem) ?? shownVerdict(t, look, mem, now, end.grace) ?? pendingVerdict(t, look, mem, now, end)
  );
}

/** The verdict the look settles by itself, if any. */
function shownVerdict(
  t: LostInstall,
  look: Look,
  mem: FollowMemory,
  now: number,
  grace: number,
): LostVerdict | undefined {
  if (look.kind === "other") {
    return {
      kind: "failed",
      why: `its VMID is now held by another VM ("${look.name}"), so this install cannot have made it`,
    };
  }
  if (look.kind === "absent") return absentVerdict(t, mem, now);
  if (exists(look)) return existingVerdict(t, runs(look), mem, now, grace);
  return undefined;
}

function absentVerdict(t: LostInstall, mem: FollowMemory, now: number): LostVerdict | undefined {
  if (mem.seen)
    return {
      kind: "failed",
      why: "the server created the VM and removed it again (it cleans up after a failed install)",
    };
  if (now >= t.createBy)
    return {
      kind: "failed",
      why: `the VM never appeared, and the server can no longer create it (the steps after ${lostAtText(t)} take at most ${duration(t.createBy - t.lostAt)})`,
    };
  return undefined;
}

function existingVerdict(
  t: LostInstall,
  running: boolean,
  mem: FollowMemory,
  now: number,
  grace: number,
): LostVerdict | undefined {
  if (running && mem.rebooted === true) {
    return {
      kind: "done",
      inferred: true,
      why:
        "the VM was seen running, then stopped, then running again: the server reboots it once, after its SSH " +
        "initialization succeeded, and never removes it after that",
    };
  }
  if (running && now >= t.undoBy) {
    const inferred = phaseIndex(t.phase) <= phaseIndex("sshInit");
    return {
      kind: "done",
      inferred,
      why: inferred
        ? `the VM runs, and the server can no longer remove it (the steps after ${lostAtText(t)} that clean up take at most ${duration(t.undoBy - t.lostAt)})`
        : undefined,
    };
  }
  if (!running && now >= t.startBy && mem.stoppedSince !== undefined && now - mem.stoppedSince >= grace) {
    return {
      kind: "partial",
      installState: "failed",
      why: "the VM exists but stays stopped: the install failed after creating it (or the server stopped working on it)",
    };
  }
  return undefined;
}

/** Nothing is settled yet: follow on until the cap, then record what can be recorded. */
function pendingVerdict(
  t: LostInstall,
  look: Look,
  mem: FollowMemory,
  now: number,
  end: { capAt: number; vmidKnown: boolean },
): LostVerdict {
  if (now < end.capAt) return { kind: "follow", why: pending(look), until: Math.min(end.capAt, t.settleBy) };
  if (exists(look) || mem.seen || end.vmidKnown) {
    return {
      kind: "partial",
      installState: "unconfirmed",
      why: `the outcome is not known yet: ${pending(look)}`,
    };
  }
  return { kind: "unknown", why: `the outcome is not known: ${pending(look)}` };
}

/** Where the stream was lost, for messages. */
function lostAtText(t: LostInstall): string {
  return t.step ? `step "${t.step}"` : "the start";
}

/** Why nothing is settled yet; without times: the messages around it name the one settle time (settleBy). */
function pending(look: Look): string {
  if (look.kind === "unreadable") return `the server could not be asked (${look.error})`;
  if (look.kind === "absent") return "the VM has not appeared yet, and the server may still create it";
  return "the server may still remove the VM (it cleans up when the initialisation fails)";
}

/**
 * - done: the server can no longer remove the VM and it runs: installed;
 * - failed-left: everything is over and the VM stays stopped: a failed install, kept;
 * - gone: the server removed it, or never made it: dropped from state;
 * - unconfirmed: not known yet: unchanged, the next refresh or up asks again.
 */
export type SettleVerdict =
  { kind: "done" | "failed-left" | "unconfirmed"; state: VmState; why: string } | { kind: "gone"; why: string };

/**
 * For refresh and the next up: settle an unconfirmed install from one look
 * now. Without a history of looks, a stopped VM counts as failed only once
 * the whole timeline is over. A state that is not unconfirmed is returned as
 * it is.
 */
export function settled(state: VmState, look: Look, now: number): SettleVerdict {
  const lost = state.installLost;
  if (state.installState !== "unconfirmed" || lost === undefined) {
    return { kind: "done", state, why: "the install was not unconfirmed" };
  }
  const stoppedSince = now >= lost.settleBy ? Number.NEGATIVE_INFINITY : undefined;
  const mem = { seen: lost.seen, stoppedSince };
  const v = decideLost(lost, look, mem, now, { capAt: now, vmidKnown: true, grace: 0 });
  const { installState: _s, installLost: _l, ...rest } = state;
  if (v.kind === "done") {
    const why = v.why ?? "the install had passed the point where the server can undo it";
    return { kind: "done", state: { ...rest, installComplete: true, installProblem: undefined }, why };
  }
  if (v.kind === "failed") return { kind: "gone", why: v.why };
  if (v.kind === "partial" && v.installState === "failed") {
    return { kind: "failed-left", state: { ...rest, installComplete: false, installProblem: v.why }, why: v.why };
  }
  const seenNow = look.kind === "present" || look.kind === "disabled";
  return { kind: "unconfirmed", state: { ...state, installLost: { ...lost, seen: lost.seen || seenNow } }, why: v.why };
}
