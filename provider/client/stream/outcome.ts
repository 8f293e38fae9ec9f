// How an operation ended, decided from the whole stream.
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
import { ErrorBodySchema, type StepEvent } from "../schemas";
import { InstallFactsTracker } from "./install-facts";
import { OPERATION_ERROR_FRAMES, STEP, STREAM_ERROR_FRAMES, isRecoverableSshKeyError } from "./wire";
import { Tail } from "./tail";
import type {
  FailureShape,
  InstallFacts,
  InstallSuccess,
  OperationEvent,
  OperationKind,
  OperationSuccess,
  StreamWarning,
} from "./types";

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

export interface OutcomeOptions {
  /** install only: the request's `name`, to derive the VM's real name */
  requestName?: string;
  onFacts?: (facts: InstallFacts) => void;
  tailLines?: number;
  tailLineChars?: number;
}

// install: after `SSH initialization` succeeded the server runs `qm reboot`; when that fails it
// returns with no event at all and the handler writes `event: close`. The step that failed is
// the reboot, which the server names only once it has worked.
const SSH_INIT_STEP = STEP.sshInit;
const REBOOT_STEP = STEP.rebooting;

export class OperationOutcome {
  private readonly tail: Tail;
  private readonly facts?: InstallFactsTracker;
  private closeSeen = false;
  private completionSeen = false;
  private lastStep: string | undefined;
  private lastStepStatus: string | undefined;
  /** `frame`: a named `event: error` frame, which fails the operation at the step it had reached. */
  private firstError: { step?: string; message: string; frame?: string } | undefined;
  /** The first `sse_error`-style frame: the stream failed, the operation may go on. */
  private streamError: { message: string; frame: string } | undefined;
  private bareMessage: string | undefined;
  private sshKeyError: StreamWarning | undefined;
  private sshKeyRecovered = false;
  /** id of the last fully processed frame; kept by the pipeline */
  lastEventId: string | undefined;

  constructor(
    readonly kind: OperationKind,
    options: OutcomeOptions = {},
  ) {
    this.tail = new Tail(options.tailLines, options.tailLineChars);
    if (kind === "install") this.facts = new InstallFactsTracker(options.requestName, options.onFacts);
  }

  get closed(): boolean {
    return this.closeSeen;
  }

  /** Output that is no event (see pipeline.ts): kept for the error report only. */
  noteOutput(line: string): void {
    if (!this.closeSeen) this.tail.push(line);
  }

  observe(ev: OperationEvent): void {
    if (this.closeSeen) return; // nothing after close changes the outcome
    switch (ev.kind) {
      case "step":
        this.onStep(ev);
        return;
      case "raw":
        // Broken JSON of the server's own template counts as the event it meant.
        if (ev.recovered?.kind === "step") this.onStep(ev.recovered);
        else if (ev.recovered?.kind === "bare") this.onBare(ev.recovered.message);
        else this.tail.push(ev.text);
        return;
      case "bare":
        this.onBare(ev.message);
        return;
      case "close":
        this.closeSeen = true;
        if (this.kind === "migrate") this.completionSeen = true;
        return;
      case "other":
        if (ev.text !== undefined) this.tail.push(ev.event === "stderr" ? `[stderr] ${ev.text}` : ev.text);
        else if (OPERATION_ERROR_FRAMES.has(ev.event)) {
          // The operation failed where it was: a definite failure, with the frame's words.
          const message = inBandErrorText(ev.event, ev.data);
          this.tail.push(message);
          this.firstError ??= { message, frame: ev.event, step: this.lastStep };
        } else if (STREAM_ERROR_FRAMES.has(ev.event)) {
          // The stream failed, not the operation: no verdict on the operation.
          const message = inBandErrorText(ev.event, ev.data);
          this.tail.push(message);
          this.streamError ??= { message, frame: ev.event };
        }
        return;
    }
  }

  private onStep(ev: StepEvent): void {
    const { step, status, message } = ev;
    this.tail.push(message);
    if (step !== "") {
      this.lastStep = step;
      this.lastStepStatus = status;
    }
    this.facts?.observe(ev);

    if (status === "error") {
      if (this.kind === "install" && isRecoverableSshKeyError(step, message) && !this.sshKeyError) {
        // Not a failure yet: the server goes on to create a key. Decided in finish().
        this.sshKeyError = { step, message };
      } else {
        this.firstError ??= { step, message };
      }
      return;
    }
    if (this.kind === "install") {
      if (status === "success" && step === STEP.sshKeyCreate && this.sshKeyError) this.sshKeyRecovered = true;
      const f = this.facts!;
      if (f.completed && f.finalVmidSeen && f.finalIpSeen) this.completionSeen = true;
    } else if ((this.kind === "start" || this.kind === "reboot") && status === "info" && isFinalInfo(step, message)) {
      this.completionSeen = true;
    }
  }

  private onBare(message: string): void {
    this.tail.push(message);
    this.bareMessage ??= message;
  }

  finish(end: StreamEnd): Outcome {
    // The SSH-key error is excused only when its recovery (a created key) really followed;
    // it becomes a warning only on a completed install. Unrecovered, it is the failure.
    const error = this.firstError ?? (this.sshKeyError && !this.sshKeyRecovered ? this.sshKeyError : undefined);

    const succeeded = this.closeSeen && !error && this.bareMessage === undefined && this.completionSeen;
    if (succeeded) return { ok: true, value: this.success(this.sshKeyError ? [this.sshKeyError] : []) };

    const base = {
      tail: this.tail.lines(),
      warnings: [] as StreamWarning[],
      facts: this.facts?.snapshot(),
      lastEventId: this.lastEventId,
    };
    if (error) {
      const failure: OutcomeFailure = {
        ...base,
        shape: "error-event",
        serverMessage: error.message,
        step: error.step ?? this.lastStep,
      };
      if ("frame" in error && error.frame !== undefined) failure.frame = error.frame;
      return { ok: false, failure };
    }
    if (this.bareMessage !== undefined)
      return {
        ok: false,
        failure: { ...base, shape: "bare-message", serverMessage: this.bareMessage, step: this.lastStep },
      };
    if (this.streamError && end.kind !== "aborted" && !(this.closeSeen && this.completionSeen)) {
      const { message, frame } = this.streamError;
      return {
        ok: false,
        failure: { ...base, shape: "stream-error", serverMessage: message, step: this.lastStep, frame },
      };
    }

    if (!this.closeSeen) {
      // The stream stopped before the server said it was done. The server said nothing about
      // it, so no serverMessage; a broken connection names what the client saw instead.
      switch (end.kind) {
        case "headers-timeout":
        case "idle-timeout":
        case "overall-timeout":
          return { ok: false, failure: { ...base, shape: end.kind, step: this.lastStep } };
        case "aborted":
          return { ok: false, failure: { ...base, shape: "aborted", step: this.lastStep } };
        case "broken":
          return {
            ok: false,
            failure: { ...base, shape: "connection-lost", serverMessage: end.detail, step: this.lastStep },
          };
        case "eof":
          return { ok: false, failure: { ...base, shape: "connection-lost", step: this.lastStep } };
      }
    }
    // Closed, but without the completion mark (shape 3): the server sent no error text, so
    // the best the client can name is the last line of output that reads like a failure.
    return {
      ok: false,
      failure: { ...base, shape: "no-completion", serverMessage: this.lastProblemLine(), step: this.silentStep() },
    };
  }

  private success(warnings: StreamWarning[]): OperationSuccess | InstallSuccess {
    const common = {
      warnings,
      tail: this.tail.lines(),
      ...(this.lastEventId !== undefined ? { lastEventId: this.lastEventId } : {}),
    };
    if (this.kind === "install") {
      const facts = this.facts!.snapshot() as InstallSuccess["facts"];
      return { kind: "install", ...common, facts };
    }
    return { kind: this.kind, ...common };
  }

  /** The step a silent close (shape 3) happened in: the last one named, or the unnamed reboot. */
  private silentStep(): string | undefined {
    if (this.kind === "install" && this.lastStep === SSH_INIT_STEP && this.lastStepStatus === "success") {
      return REBOOT_STEP;
    }
    return this.lastStep;
  }

  private lastProblemLine(): string | undefined {
    for (const line of this.tail.newestFirst()) {
      if (/^\s*\[-\]/.test(line) || /\b(error|failed|failure)\b/i.test(line)) return line.trim();
    }
    return undefined;
  }
}

function isFinalInfo(step: string, message: string): boolean {
  if (message.startsWith("[-]")) return false; // e.g. `waiting for SSH` info `[-] failed to get OS user`
  return step === "finalizing" || message.startsWith("[+]");
}

const IN_BAND_DATA_MAX = 500;

/** `in-band "sse_error" frame of the stream: <words> (data: <data>)`: what it is, what it said, what it carried. */
function inBandErrorText(event: string, data: string): string {
  const words = errorFrameMessage(data);
  const shown =
    data.length > IN_BAND_DATA_MAX
      ? `${data.slice(0, IN_BAND_DATA_MAX)}… [${data.length - IN_BAND_DATA_MAX} more chars]`
      : data;
  return words === data
    ? `in-band "${event}" frame of the stream: ${shown}`
    : `in-band "${event}" frame of the stream: ${words} (data: ${shown})`;
}

/** The words of an in-band error frame: its JSON message/error field, or its text. */
function errorFrameMessage(data: string): string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return data; // not JSON: the text is the message
  }
  const body = ErrorBodySchema.safeParse(value);
  if (!body.success) return data;
  const { message, error } = body.data;
  return message ?? (typeof error === "string" ? error : error?.message) ?? data;
}
