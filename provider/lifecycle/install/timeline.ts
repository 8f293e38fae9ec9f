// The deadlines of an install whose stream was lost, as arithmetic on the
// phase bounds: from the step the server had reached, how long until it can
// no longer create the VM, start it, or remove it. Every later fact (a look
// that shows the install further on, the time it began) only tightens them:
// each bound is an upper bound, so the earlier deadline wins.
import { PHASES, cleanupBound, phaseBounds, phaseIndex } from "../../client";
import type { OpenBounds, Phase } from "../../client";
import type { LostInstall } from "../model";

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
  return sincePhase(t, { phase: reached, at: now }, open, withNode);
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

/**
 * A stored timeline as it holds under the bounds configured now: each
 * deadline the earlier of the stored one and the same arithmetic from where
 * the stream was lost. With the bounds unchanged it is the stored timeline
 * itself, so every run quotes the same times; shortened bounds shorten it.
 */
export function underBounds(t: LostInstall, open: OpenBounds, withNode: boolean): LostInstall {
  return sincePhase(t, { phase: t.phase, at: t.lostAt }, open, withNode);
}
