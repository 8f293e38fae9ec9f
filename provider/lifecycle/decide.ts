// The outcome rules of an install, as pure functions: (how it failed, what
// the stream had shown, what the server shows now, the time) -> a verdict.
// create.ts and follow.ts only observe, call these, and record; read/update
// call `settle` for a VM whose install could not be confirmed.
//
// The rule behind every row: success is recorded only once the server can no
// longer undo it. The server destroys a half-made VM when the disk import,
// the initialisation or the SSH initialisation fails (wire.ts, the notes on PHASES),
// so after a lost stream "the VM runs" proves nothing until the time those
// steps can still take has passed (the timeline below). Where the outcome
// cannot be known in time, the VM is recorded as `installState: "unconfirmed"`
// with its timeline, and the next refresh or up settles it.
import { z } from "zod";
import { PHASES, cleanupBound, phaseBounds, phaseIndex } from "../client";
import type { OpenBounds, Phase } from "../client";
import { exists, runs } from "./look";
import type { Look } from "./look";
import { duration } from "./labels";

// ---- the timeline of an install whose stream was lost --------------------------

/** Kept in state for an unconfirmed install; clock times in ms. */
export const LostInstallSchema = z.object({
  /** the last step the stream showed ("" before the first) */
  step: z.string(),
  phase: z.enum(PHASES),
  /** when the stream was lost */
  lostAt: z.number(),
  /** after this the server can no longer create the VM */
  createBy: z.number(),
  /** after this the install will not start a stopped VM any more */
  startBy: z.number(),
  /** after this the server can no longer remove the VM (its clean-up steps are over) */
  undoBy: z.number(),
  /** after this every question is answered */
  settleBy: z.number(),
  /** the VM was seen on the server since */
  seen: z.boolean(),
});
export type LostInstall = z.infer<typeof LostInstallSchema>;

/** The one install state beside complete / failed (installComplete). */
export const InstallStateSchema = z.enum(["unconfirmed"]);

function remaining(from: Phase, to: Phase, bounds: Record<Phase, number>, withNode: boolean): number {
  let ms = 0;
  for (let i = phaseIndex(from); i <= phaseIndex(to); i++) {
    const p = PHASES[i]!;
    if (p !== "migrate" || withNode) ms += bounds[p];
  }
  return ms;
}

/** How long a VM may stay stopped between two phases that run it (qm reboot; clean-up's stop before destroy). */
export function stoppedGrace(open: OpenBounds): number {
  return Math.max(cleanupBound(open), phaseBounds(open).qmReboot);
}

/** The timeline from the phase the server had reached at least when the stream was lost. */
export function timelineOf(
  at: { step: string; phase: Phase; lostAt: number; seen?: boolean },
  open: OpenBounds,
  withNode: boolean,
): LostInstall {
  const b = phaseBounds(open);
  const idx = phaseIndex(at.phase);
  const until = (to: Phase, extra = 0): number =>
    idx <= phaseIndex(to) ? at.lostAt + remaining(at.phase, to, b, withNode) + extra : at.lostAt;
  const createBy = until("createVm");
  const startBy = until("qmStart");
  const undoBy = until("sshInit", cleanupBound(open));
  return {
    step: at.step,
    phase: at.phase,
    lostAt: at.lostAt,
    createBy,
    startBy,
    undoBy,
    settleBy: Math.max(createBy, startBy + stoppedGrace(open), undoBy),
    seen: at.seen ?? false,
  };
}

/**
 * A later look showed the install further on (the VM exists, carries its OS
 * tag, runs): the remaining steps from there, counted from now, bound it too.
 * Both timelines are upper bounds, so each deadline is the earlier of the two.
 */
export function advance(t: LostInstall, reached: Phase, now: number, open: OpenBounds, withNode: boolean): LostInstall {
  if (phaseIndex(reached) <= phaseIndex(t.phase)) return t;
  const n = timelineOf({ step: t.step, phase: reached, lostAt: now }, open, withNode);
  const createBy = Math.min(t.createBy, n.createBy);
  const startBy = Math.min(t.startBy, n.startBy);
  const undoBy = Math.min(t.undoBy, n.undoBy);
  const settleBy = Math.max(createBy, startBy + stoppedGrace(open), undoBy);
  return { ...t, phase: reached, createBy, startBy, undoBy, settleBy };
}

/**
 * The install began no earlier than `began` (the time in its VM's name, or in
 * this machine's journal), plus this much: the name's time is whole seconds,
 * and another machine's clock may be a little off.
 */
const START_SLACK_MS = 60_000;

/**
 * An install known to have begun at `began`: the whole install from there
 * bounds it too, so each deadline is the earlier of the two (a VM whose
 * install began hours ago is past every step that could still remove it).
 */
export function sinceStart(t: LostInstall, began: number, open: OpenBounds, withNode: boolean): LostInstall {
  return sincePhase(t, { phase: "checkVmid", at: began + START_SLACK_MS }, open, withNode);
}

/**
 * The server had reached `phase` by `at` (what the stream said before it was
 * lost, kept in this machine's journal): the steps after it, from then,
 * bound the install too; each deadline is the earlier one.
 */
export function sincePhase(
  t: LostInstall,
  reached: { phase: Phase; at: number },
  open: OpenBounds,
  withNode: boolean,
): LostInstall {
  const s = timelineOf({ step: t.step, phase: reached.phase, lostAt: reached.at }, open, withNode);
  const createBy = Math.min(t.createBy, s.createBy);
  const startBy = Math.min(t.startBy, s.startBy);
  const undoBy = Math.min(t.undoBy, s.undoBy);
  const settleBy = Math.max(createBy, startBy + stoppedGrace(open), undoBy);
  const phase = phaseIndex(reached.phase) > phaseIndex(t.phase) ? reached.phase : t.phase;
  return { ...t, phase, createBy, startBy, undoBy, settleBy };
}

/** The phase the server has reached at least, by what the VM shows. */
export function phaseShown(seen: Look): Phase | undefined {
  if (!exists(seen)) return undefined;
  if (runs(seen)) return "waitReady"; // only `qm start` runs it
  // The OS tag is set while initialising; a disabled VM lists the tag "-".
  const tagged = seen.kind === "disabled" || seen.tagged;
  return tagged ? "initConfig" : "importDisk";
}

// ---- verdicts --------------------------------------------------------------------------

export type Verdict =
  /** record success; `inferred` when the completion itself was never seen */
  | { kind: "done"; inferred: boolean; why?: string }
  /** keep the VM in state: the install failed and left it, or its outcome is not known yet */
  | { kind: "partial"; installState: "failed" | "unconfirmed"; why: string }
  /** nothing of this install exists: a plain error, nothing in state */
  | { kind: "failed"; why: string }
  /** nothing was made and a second try can work */
  | { kind: "retry"; why: string; advice: string }
  /** ask again later, until `until` at the latest */
  | { kind: "follow"; why: string; until: number }
  /** it cannot be known, and there is no VMID to record */
  | { kind: "unknown"; why: string };

// ---- after a lost stream --------------------------------------------------------------

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
}

/**
 * What one look adds to the follow's memory. Only a definite stop counts for
 * the reboot rule (a power state that could not be read is no stop); a
 * disabled VM lists no power state at all.
 */
export function remember(mem: FollowMemory, seen: Look, now: number): FollowMemory {
  if (!exists(seen)) return mem;
  if (runs(seen)) {
    return {
      seen: true,
      ran: true,
      stoppedAfterRun: mem.stoppedAfterRun,
      rebooted: mem.rebooted || mem.stoppedAfterRun,
    };
  }
  const stopped = seen.kind === "present" && seen.running === false;
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
  seen: Look,
  mem: FollowMemory,
  now: number,
  end: { capAt: number; vmidKnown: boolean; grace: number },
): Verdict {
  return shownVerdict(t, seen, mem, now, end.grace) ?? pendingVerdict(t, seen, mem, now, end);
}

/** The verdict the look settles by itself, if any. */
function shownVerdict(t: LostInstall, seen: Look, mem: FollowMemory, now: number, grace: number): Verdict | undefined {
  if (seen.kind === "other") {
    return {
      kind: "failed",
      why: `its VMID is now held by another VM ("${seen.name}"), so this install cannot have made it`,
    };
  }
  if (seen.kind === "absent") return absentVerdict(t, mem, now);
  if (exists(seen)) return existingVerdict(t, runs(seen), mem, now, grace);
  return undefined;
}

function absentVerdict(t: LostInstall, mem: FollowMemory, now: number): Verdict | undefined {
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
): Verdict | undefined {
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
  seen: Look,
  mem: FollowMemory,
  now: number,
  end: { capAt: number; vmidKnown: boolean },
): Verdict {
  if (now < end.capAt) return { kind: "follow", why: pending(t, seen, now), until: Math.min(end.capAt, t.settleBy) };
  if (exists(seen) || mem.seen || end.vmidKnown) {
    return {
      kind: "partial",
      installState: "unconfirmed",
      why: `the outcome is not known yet: ${pending(t, seen, now)}`,
    };
  }
  return { kind: "unknown", why: `the outcome is not known: ${pending(t, seen, now)}` };
}

/** Where the stream was lost, for messages. */
function lostAtText(t: LostInstall): string {
  return t.step ? `step "${t.step}"` : "the start";
}

function pending(t: LostInstall, seen: Look, now: number): string {
  if (seen.kind === "unreadable") return `the server could not be asked (${seen.error})`;
  if (seen.kind === "absent")
    return `the VM has not appeared yet; the server may create it until ${duration(t.createBy - now)} from now`;
  return `the server may still remove the VM for ${duration(Math.max(0, t.undoBy - now))} (it cleans up when the initialisation fails)`;
}

/**
 * For read / update: settle an unconfirmed install from one look now. Without
 * a history, a stopped VM counts as failed only once the whole timeline is over.
 */
export function settle(
  t: LostInstall,
  seen: Look,
  now: number,
): { kind: "done" | "failed-left" | "gone" | "unconfirmed"; why: string } {
  const stoppedSince = now >= t.settleBy ? Number.NEGATIVE_INFINITY : undefined;
  const v = decideLost(t, seen, { seen: t.seen, stoppedSince }, now, { capAt: now, vmidKnown: true, grace: 0 });
  switch (v.kind) {
    case "done":
      return { kind: "done", why: v.why ?? "the install had passed the point where the server can undo it" };
    case "failed":
      return { kind: "gone", why: v.why };
    case "partial":
      return { kind: v.installState === "failed" ? "failed-left" : "unconfirmed", why: v.why };
    default:
      return { kind: "unconfirmed", why: v.why };
  }
}

// ---- right after the install call failed ---------------------------------------------

/** How the install call failed, classified (create.ts `classify`). */
export type Failure =
  /** refused before any work: the server's own refusal body, or any answer below 500 */
  | { kind: "refused"; status: number }
  /** a gateway's JSON 5xx: it buffers whole answers, so the install may run behind it */
  | { kind: "gateway"; status: number }
  /**
   * no stream came: a 5xx page or text, or no answer's headers in time. The server sends
   * its stream's headers before any work, so the install never began; `seen`: one look
   * found a VM that can only be this install's all the same (so something did begin).
   */
  | { kind: "no-stream"; status?: number; seen: boolean }
  /** no answer; `serverAnswers` when a list works right after */
  | { kind: "unreachable"; serverAnswers: boolean }
  | { kind: "cancelled" }
  /** the stream was lost (cut, silent, too long) while the server carries on */
  | { kind: "lost" }
  /**
   * the server ended the install without success (error event, bare message, close without
   * completion); `reachedEnd`: the stream had shown the last step, whose end was lost or came after close
   */
  | { kind: "ended"; step?: string; retryable: boolean; vmidTakenRace: boolean; reachedEnd: boolean }
  | { kind: "unexpected" };

export interface FailureFacts {
  vmid?: number;
  vmCreated: boolean;
  pinned: boolean;
  /** the VM can be recognised on the server after a lost stream (a VMID, or a name to look for) */
  followable: boolean;
  /** the VMID was in the list before the install began */
  existedBefore: boolean;
  attempt: number;
}

export type FailureVerdict =
  | Exclude<Verdict, { kind: "follow" } | { kind: "done" }>
  /** follow the install: from the step the stream reached, or from its start (nothing was heard) */
  | { kind: "follow"; why: string; from: "stream" | "start" };

const MAX_ATTEMPTS = 2;

/**
 * The decision table for a failed install call. `seen` is one look at the
 * VMID, taken only when the server ended the install and the VMID is known.
 */
export function decideFailure(f: Failure, facts: FailureFacts, seen?: Look): FailureVerdict {
  switch (f.kind) {
    case "refused":
      return { kind: "failed", why: "nothing was created" };
    case "gateway":
      if (!facts.followable)
        return {
          kind: "failed",
          why: "the answer is a gateway's, behind which the install may run, but without a vmid or name nothing could be recognised as this install's; nothing was recorded",
        };
      return {
        kind: "follow",
        from: "start",
        why: `HTTP ${f.status} in JSON came from a gateway that holds back whole answers, not from the server: the install may be running behind it`,
      };
    case "no-stream":
      if (!f.seen)
        return {
          kind: "failed",
          why: "the server's stream never began (it sends its headers before any work), and no VM of this install is on the server: nothing was created",
        };
      return {
        kind: "follow",
        from: "start",
        why: "no stream came, yet a VM of this install is on the server: something in between held the stream back",
      };
    case "unreachable":
      if (!f.serverAnswers || !facts.followable)
        return { kind: "failed", why: "the server could not be reached to install" };
      return {
        kind: "follow",
        from: "start",
        why: "the request broke, but the server answers: the install may have started",
      };
    case "cancelled":
      if (facts.vmid === undefined || facts.existedBefore)
        return { kind: "failed", why: "the install was cancelled before a VMID was assigned" };
      return {
        kind: "partial",
        installState: "unconfirmed",
        why: "was cancelled; the server may still be installing it",
      };
    case "lost":
      if (!facts.followable)
        return {
          kind: "unknown",
          why:
            "the stream was lost before the server named the VMID, and nothing on the server can be told to be this " +
            "install's (a name the user gave is no evidence: another stack may install the same name)",
        };
      return { kind: "follow", from: "stream", why: "the server carries on without a listener" };
    case "unexpected":
      if (facts.vmid === undefined) return { kind: "failed", why: "the install failed" };
      return { kind: "follow", from: "stream", why: "the install's end was not understood" };
    case "ended":
      return decideEnded(f, facts, seen);
  }
}

function decideEnded(f: Extract<Failure, { kind: "ended" }>, facts: FailureFacts, seen?: Look): FailureVerdict {
  if (f.reachedEnd && facts.vmid !== undefined) {
    // Nothing after the last step can fail: only its last lines went missing (lost, or sent after close).
    return {
      kind: "follow",
      from: "stream",
      why: "the install reached its last step, but its completion mark did not arrive",
    };
  }
  if (f.retryable && !facts.vmCreated) {
    return retryOnce(facts, {
      why: "the server could not create its SSH key pair: another install on a fresh server was creating it at the same moment",
      advice: "The server cannot create its SSH key pair: check its $HOME/.ssh",
    });
  }
  if (facts.vmid === undefined)
    return { kind: "failed", why: "the install failed before a VMID was assigned; nothing was created" };
  if (seen === undefined || seen.kind === "unreadable") {
    if (facts.vmCreated)
      return {
        kind: "partial",
        installState: "failed",
        why: "failed after the VM was created, and the server could not be asked whether it still exists",
      };
    return { kind: "failed", why: "the install failed before the VM was created" };
  }
  if (seen.kind === "absent") {
    return {
      kind: "failed",
      why: `nothing is left on the server${facts.vmCreated ? " (the server removed the half-made VM)" : ""}`,
    };
  }
  if (f.vmidTakenRace && !facts.vmCreated) {
    const holder = seen.kind === "other" ? ` ("${seen.name}")` : "";
    const taken = `VMID ${facts.vmid} was taken by another VM${holder} while this install was preparing`;
    if (facts.pinned) return { kind: "failed", why: `${taken}; nothing of this install was created` };
    return retryOnce(facts, {
      why: `${taken} (the auto-assigned VMID race); the server picks the next free VMID`,
      advice: "Another client is installing VMs on the same server at the same time: pin a vmid, or try again",
    });
  }
  if (facts.existedBefore || seen.kind === "other")
    return {
      kind: "failed",
      why: `VM ${facts.vmid} on the server existed before the install and is not this install's`,
    };
  return { kind: "partial", installState: "failed", why: "failed after the VM was created" };
}

/** Nothing was made: retry once; a second time it fails, with the advice. */
function retryOnce(facts: FailureFacts, r: { why: string; advice: string }): FailureVerdict {
  if (facts.attempt >= MAX_ATTEMPTS)
    return { kind: "failed", why: `${r.why}; it happened again on the retry. ${r.advice}` };
  return { kind: "retry", ...r };
}
