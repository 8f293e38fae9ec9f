// What the stream shows of an operation, gathered event by event as it arrives:
// the last step, the first error, a refusal, the completion mark, an install's
// facts and the last lines of output. The verdict needs the whole stream, so
// nothing is decided here until the stream has stopped; nothing after close
// changes what was seen.
import type { StepEvent } from "../schemas";
import { inBandErrorText } from "./error-frame-text";
import { InstallFactsTracker } from "./install-facts";
import { OPERATION_ERROR_FRAMES, STEP, STREAM_ERROR_FRAMES, isRecoverableSshKeyError } from "./wire";
import { Tail } from "./tail";
import type { InstallFacts, OperationEvent, OperationKind } from "./types";
import { decideOutcome, type Outcome, type StreamEnd, type StreamEvidence } from "./verdict";

export interface OutcomeOptions {
  /** install only: the request's `name`, to derive the VM's real name */
  requestName?: string;
  onFacts?: (facts: InstallFacts) => void;
  tailLines?: number;
  tailLineChars?: number;
}

export class OperationOutcome {
  private readonly seen: StreamEvidence;
  /** id of the last fully processed frame; kept by the pipeline */
  lastEventId: string | undefined;

  constructor(
    readonly kind: OperationKind,
    options: OutcomeOptions = {},
  ) {
    this.seen = {
      kind,
      closeSeen: false,
      completionSeen: false,
      lastStep: undefined,
      lastStepStatus: undefined,
      firstError: undefined,
      streamError: undefined,
      bareMessage: undefined,
      sshKeyError: undefined,
      sshKeyRecovered: false,
      tail: new Tail(options.tailLines, options.tailLineChars),
      facts: kind === "install" ? new InstallFactsTracker(options.requestName, options.onFacts) : undefined,
    };
  }

  get closed(): boolean {
    return this.seen.closeSeen;
  }

  /** Output that is no event (a line that is no SSE field): kept for the error report only. */
  noteOutput(line: string): void {
    if (!this.seen.closeSeen) this.seen.tail.push(line);
  }

  observe(ev: OperationEvent): void {
    const seen = this.seen;
    if (seen.closeSeen) return; // nothing after close changes the outcome
    switch (ev.kind) {
      case "step":
        this.onStep(ev);
        return;
      case "raw":
        // Broken JSON of the server's own template counts as the event it meant.
        if (ev.recovered?.kind === "step") this.onStep(ev.recovered);
        else if (ev.recovered?.kind === "bare") this.onBare(ev.recovered.message);
        else seen.tail.push(ev.text);
        return;
      case "bare":
        this.onBare(ev.message);
        return;
      case "close":
        seen.closeSeen = true;
        if (this.kind === "migrate") seen.completionSeen = true;
        return;
      case "other":
        if (ev.text !== undefined) seen.tail.push(ev.event === "stderr" ? `[stderr] ${ev.text}` : ev.text);
        else if (OPERATION_ERROR_FRAMES.has(ev.event)) {
          // The operation failed where it was: a definite failure, with the frame's words.
          const message = inBandErrorText(ev.event, ev.data);
          seen.tail.push(message);
          seen.firstError ??= { message, frame: ev.event, step: seen.lastStep };
        } else if (STREAM_ERROR_FRAMES.has(ev.event)) {
          // The stream failed, not the operation: no verdict on the operation.
          const message = inBandErrorText(ev.event, ev.data);
          seen.tail.push(message);
          seen.streamError ??= { message, frame: ev.event };
        }
        return;
    }
  }

  private onStep(ev: StepEvent): void {
    const seen = this.seen;
    const { step, status, message } = ev;
    seen.tail.push(message);
    if (step !== "") {
      seen.lastStep = step;
      seen.lastStepStatus = status;
    }
    seen.facts?.observe(ev);

    if (status === "error") {
      if (this.kind === "install" && isRecoverableSshKeyError(step, message) && !seen.sshKeyError) {
        // Not a failure yet: the server goes on to create a key. Decided once the stream has stopped.
        seen.sshKeyError = { step, message };
      } else {
        seen.firstError ??= { step, message };
      }
      return;
    }
    if (this.kind === "install") {
      if (status === "success" && step === STEP.sshKeyCreate && seen.sshKeyError) seen.sshKeyRecovered = true;
      const f = seen.facts!;
      if (f.completed && f.finalVmidSeen && f.finalIpSeen) seen.completionSeen = true;
    } else if ((this.kind === "start" || this.kind === "reboot") && status === "info" && isFinalInfo(step, message)) {
      seen.completionSeen = true;
    }
  }

  private onBare(message: string): void {
    this.seen.tail.push(message);
    this.seen.bareMessage ??= message;
  }

  finish(end: StreamEnd): Outcome {
    return decideOutcome(this.seen, end, this.lastEventId);
  }
}

function isFinalInfo(step: string, message: string): boolean {
  if (message.startsWith("[-]")) return false; // e.g. `waiting for SSH` info `[-] failed to get OS user`
  return step === "finalizing" || message.startsWith("[+]");
}
