// How an operation ended, decided from the whole stream once it has stopped.
//
// HTTP 200 says nothing (the wire doc): success needs ALL of
//   - `event: close` received,
//   - no error event, except the one the server recovers from (below),
//   - no bare {"message": ...} refusal,
//   - the operation's completion mark:
//       install        `[+] VM installation completed` and the final `[*] VMID:` and `[*] IP:` lines
//       start, reboot  the final `info` event (`finalizing`, `[+] VM started|rebooted successfully`)
//       migrate        close itself (the stream is only raw `qm migrate` output)
// Anything else is one of the failure shapes, chosen by the strongest evidence:
//   error event (a step's, or a named `event: error` frame)  >  bare message  >
//   a cancellation  >  an `sse_error` frame (the stream's own failure)  >  the
//   client-side end (timeouts, lost connection)  >  close without the
//   completion mark.
import type { InstallFactsTracker } from "./install-facts";
import type { Tail } from "./tail";
import type {
  FailureShape,
  InstallFacts,
  InstallSuccess,
  OperationKind,
  OperationSuccess,
  StreamWarning,
} from "./types";
import { STEP } from "./wire";

/** How the byte stream stopped, seen from the reader. */
export type StreamEnd =
  | { kind: "eof" } // the server ended the response (after close, or not)
  | { kind: "broken"; detail: string } // socket error, reset, buffer overflow
  | { kind: "headers-timeout" | "idle-timeout" | "overall-timeout"; afterMs: number }
  | { kind: "aborted"; reason?: unknown };

export interface OutcomeFailure {
  shape: FailureShape;
  serverMessage?: string;
  step?: string;
  /** the named frame that carried the failure (`error`, `sse_error`), when it was not a step's event */
  frame?: string;
  tail: string[];
  warnings: StreamWarning[];
  facts?: InstallFacts;
  lastEventId?: string;
}

export type Outcome = { ok: true; value: OperationSuccess | InstallSuccess } | { ok: false; failure: OutcomeFailure };

/** What the stream showed of an operation, gathered event by event: all the verdict is decided from. */
export interface StreamEvidence {
  readonly kind: OperationKind;
  closeSeen: boolean;
  completionSeen: boolean;
  lastStep: string | undefined;
  lastStepStatus: string | undefined;
  /** `frame`: a named `event: error` frame, which fails the operation at the step it had reached. */
  firstError: { step?: string; message: string; frame?: string } | undefined;
  /** The first `sse_error`-style frame: the stream failed, the operation may go on. */
  streamError: { message: string; frame: string } | undefined;
  bareMessage: string | undefined;
  sshKeyError: StreamWarning | undefined;
  sshKeyRecovered: boolean;
  readonly tail: Tail;
  /** install only */
  readonly facts: InstallFactsTracker | undefined;
}

type ErrorEvidence = NonNullable<StreamEvidence["firstError"]> | StreamWarning;
type FailureBase = Pick<OutcomeFailure, "tail" | "warnings" | "facts" | "lastEventId">;

// install: after `SSH initialization` succeeded the server runs `qm reboot`; when that fails it
// returns with no event at all and the handler writes `event: close`. The step that failed is
// the reboot, which the server names only once it has worked.
const SSH_INIT_STEP = STEP.sshInit;
const REBOOT_STEP = STEP.rebooting;

export function decideOutcome(seen: StreamEvidence, end: StreamEnd, lastEventId: string | undefined): Outcome {
  // The SSH-key error is excused only when its recovery (a created key) really followed;
  // it becomes a warning only on a completed install. Unrecovered, it is the failure.
  const error = seen.firstError ?? (seen.sshKeyError && !seen.sshKeyRecovered ? seen.sshKeyError : undefined);

  const succeeded = seen.closeSeen && !error && seen.bareMessage === undefined && seen.completionSeen;
  if (succeeded) return { ok: true, value: success(seen, seen.sshKeyError ? [seen.sshKeyError] : [], lastEventId) };

  const base: FailureBase = {
    tail: seen.tail.lines(),
    warnings: [],
    facts: seen.facts?.snapshot(),
    lastEventId,
  };
  return { ok: false, failure: failureOf(seen, error, end, base) };
}

/** The failure shape of the strongest evidence, in the order of the rules above. */
function failureOf(
  seen: StreamEvidence,
  error: ErrorEvidence | undefined,
  end: StreamEnd,
  base: FailureBase,
): OutcomeFailure {
  if (error) {
    const failure: OutcomeFailure = {
      ...base,
      shape: "error-event",
      serverMessage: error.message,
      step: error.step ?? seen.lastStep,
    };
    if ("frame" in error && error.frame !== undefined) failure.frame = error.frame;
    return failure;
  }
  if (seen.bareMessage !== undefined)
    return { ...base, shape: "bare-message", serverMessage: seen.bareMessage, step: seen.lastStep };
  if (seen.streamError && end.kind !== "aborted" && !(seen.closeSeen && seen.completionSeen)) {
    const { message, frame } = seen.streamError;
    return { ...base, shape: "stream-error", serverMessage: message, step: seen.lastStep, frame };
  }
  if (!seen.closeSeen) return endedEarly(base, end, seen.lastStep);
  // Closed, but without the completion mark (shape 3): the server sent no error text, so
  // the best the client can name is the last line of output that reads like a failure.
  return { ...base, shape: "no-completion", serverMessage: lastProblemLine(seen.tail), step: silentStep(seen) };
}

/**
 * The stream stopped before the server said it was done. The server said nothing about
 * it, so no serverMessage; a broken connection names what the client saw instead.
 */
function endedEarly(base: FailureBase, end: StreamEnd, step: string | undefined): OutcomeFailure {
  switch (end.kind) {
    case "headers-timeout":
    case "idle-timeout":
    case "overall-timeout":
      return { ...base, shape: end.kind, step };
    case "aborted":
      return { ...base, shape: "aborted", step };
    case "broken":
      return { ...base, shape: "connection-lost", serverMessage: end.detail, step };
    case "eof":
      return { ...base, shape: "connection-lost", step };
  }
}

function success(
  seen: StreamEvidence,
  warnings: StreamWarning[],
  lastEventId: string | undefined,
): OperationSuccess | InstallSuccess {
  const common = {
    warnings,
    tail: seen.tail.lines(),
    ...(lastEventId !== undefined ? { lastEventId } : {}),
  };
  if (seen.kind === "install") {
    const facts = seen.facts!.snapshot() as InstallSuccess["facts"];
    return { kind: "install", ...common, facts };
  }
  return { kind: seen.kind, ...common };
}

/** The step a silent close (shape 3) happened in: the last one named, or the unnamed reboot. */
function silentStep(seen: StreamEvidence): string | undefined {
  if (seen.kind === "install" && seen.lastStep === SSH_INIT_STEP && seen.lastStepStatus === "success") {
    return REBOOT_STEP;
  }
  return seen.lastStep;
}

function lastProblemLine(tail: Tail): string | undefined {
  for (const line of tail.newestFirst()) {
    if (/^\s*\[-\]/.test(line) || /\b(error|failed|failure)\b/i.test(line)) return line.trim();
  }
  return undefined;
}
