// The outcome rules of a streamed update step (start, reboot, set/node), as
// pure functions: (how the stream ended, what it had shown, one look at the
// VM, is the time up) -> applied / failed / look again.
//
// On the real server the stream is often lost while the server carries on
// (its command runner corrupts its own responses: broken chunk framing, lines
// lost, no `event: close`), so a lost stream is a question to the VM, not a
// failure: the VM on the target node means the migration happened; a VM that
// runs means the start happened. A definite failure (an error event, the
// server's bare refusal) stays a failure, and a success the VM does not show
// is not taken on the stream's word either.
import type { FailureShape } from "../../client";
import type { Timing } from "../core";
import type { Look } from "../observe";

export type StreamedKind = "start" | "reboot" | "migrate";

/** What the stream said, as the rules need it. */
export interface StreamReport {
  kind: StreamedKind;
  /** `success`: the client saw the operation complete; `lost`: the stream ended without a verdict */
  ended: "success" | "lost";
  /** start/reboot: the stream had shown the power step done (`[+] VM starting` / `[+] VM rebooting`) */
  powerStepDone: boolean;
  /** reboot: the VM was seen stopped since the request (`qm reboot` stops the guest and starts it again) */
  stoppedSeen?: boolean;
  /** migrate: the node asked for */
  targetNode?: string;
}

export type OperationVerdict =
  { kind: "applied"; why: string } | { kind: "failed"; why: string } | { kind: "wait"; why: string };

/**
 * The shapes after which the server may still be doing (or have done) the
 * work: ask the VM. An `sse_error` frame is the stream's failure, not the
 * operation's; an error event (a step's, or `event: error`) and the server's
 * bare refusal are definite.
 */
export function isLost(shape: FailureShape): boolean {
  return (
    shape === "connection-lost" ||
    shape === "idle-timeout" ||
    shape === "overall-timeout" ||
    shape === "no-completion" ||
    shape === "stream-error"
  );
}

/** The decision table. `timeUp`: the bound (boundMs) has passed; the last look decides. */
export function decideOperation(report: StreamReport, look: Look, timeUp: boolean): OperationVerdict {
  const claimed = report.ended === "success" ? "reported success, but " : "the stream was lost, and ";
  switch (look.kind) {
    case "absent":
      return { kind: "failed", why: `${claimed}the server no longer lists the VM` };
    case "other":
      return { kind: "failed", why: `${claimed}its VMID now belongs to a VM named ${JSON.stringify(look.name)}` };
    case "disabled":
      return { kind: "failed", why: `${claimed}the VM is now in the server's disabled list` };
    case "unreadable":
      return timeUp
        ? { kind: "failed", why: `${claimed}the server could not be asked about the VM (${look.error})` }
        : { kind: "wait", why: `the server could not be asked (${look.error})` };
    case "present":
      return decidePresent(report, look, timeUp, claimed);
  }
}

function decidePresent(
  report: StreamReport,
  look: Extract<Look, { kind: "present" }>,
  timeUp: boolean,
  claimed: string,
): OperationVerdict {
  const power = look.running === undefined ? "not readable" : look.running ? "running" : "stopped";
  if (report.kind === "migrate") {
    if (look.node === report.targetNode) return { kind: "applied", why: `the VM is on node ${look.node}` };
    const why = `the VM is on node ${look.node}, not ${report.targetNode ?? "?"}`;
    return timeUp ? { kind: "failed", why: `${claimed}${why}` } : { kind: "wait", why: `${why} (still migrating?)` };
  }
  if (look.running !== true) {
    const why = `its status is ${power}`;
    return timeUp ? { kind: "failed", why: `${claimed}${why}` } : { kind: "wait", why };
  }
  if (report.kind === "start" || report.ended === "success" || report.powerStepDone) {
    return { kind: "applied", why: "the VM runs" };
  }
  if (report.stoppedSeen === true) return { kind: "applied", why: "the VM was seen stopped and running again" };
  // A reboot leaves a running VM running: lost before the server said it rebooted, only its stopped
  // moment shows that it did. Waiting for one that may never come would be waiting on the clock
  // alone: the update fails instead (keeping the old triggers), and the next up reboots again.
  return {
    kind: "failed",
    why: "the stream was lost before the server reported the reboot, and a running VM cannot show whether it rebooted",
  };
}

/** How long to keep looking: the time the server's remaining work can take, capped by followTimeoutMs. */
export function boundMs(report: StreamReport, timing: Timing): number {
  // A success only waits for the list or status to catch up.
  if (report.ended === "success") return timing.confirmTimeoutMs;
  // The server moves the VM as long as `qm migrate` copies its disks.
  if (report.kind === "migrate") return Math.min(timing.followTimeoutMs, timing.migrateBoundMs);
  // Past the power step the VM runs already; only the list may lag.
  if (report.powerStepDone) return timing.confirmTimeoutMs;
  // qm start is one command; qm reboot is a guest shutdown and a start.
  const qm = report.kind === "start" ? timing.commandBoundMs : timing.shutdownTimeoutMs + timing.commandBoundMs;
  return Math.min(timing.followTimeoutMs, qm);
}
