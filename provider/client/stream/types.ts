// What the stream reader hands upward: events as the server meant them,
// facts gathered from an install, and how an operation ended.
import type { StepEvent } from "../schemas";

/** Which long operation a stream belongs to; each has its own completion mark. */
export type OperationKind = "install" | "start" | "reboot" | "migrate";

/**
 * One decoded unit of a stream, in arrival order.
 * - step:  a well-formed {"step","status","message"} event
 * - raw:   a data line that is not valid JSON (unescaped command output): kept as text
 * - bare:  the bare {"message": ...} pre-check refusal (no step/status)
 * - close: `event: close`
 * - other: a named event the operation does not know (e.g. heartbeat), or a valid JSON
 *          payload of an unexpected shape; it proves liveness and is otherwise ignored
 */
export type OperationEvent =
  | StepOperationEvent
  | {
      kind: "raw";
      id?: string;
      text: string;
      /**
       * What the server meant, when the text is one of its own templates broken only by
       * unescaped quotes/backslashes in the message (`{"step":"..","status":"..","message":".."}`
       * or `{"message": ".."}`): the template is inverted, so the message is exact.
       */
      recovered?: StepOperationEvent | BareOperationEvent;
    }
  | BareOperationEvent
  | { kind: "close"; id?: string }
  | {
      kind: "other";
      id?: string;
      event: string;
      data: string;
      /** decoded output text of a stdout/stderr frame ({"encoding":"base64"|"ascii","value":..}) */
      text?: string;
    };

export type StepOperationEvent = { kind: "step"; id?: string } & StepEvent;
export type BareOperationEvent = { kind: "bare"; id?: string; message: string };

/** Facts read from an install stream as soon as each appears. */
export interface InstallFacts {
  vmid?: number;
  /** true when the server picked the VMID (no `id` was sent) */
  autoAssigned?: boolean;
  /** without the /24 suffix */
  ip?: string;
  user?: string;
  /** values after the server's clamping, when it said it clamped them */
  cpu?: number;
  memoryMb?: number;
  diskGb?: number;
  /** `<name>-<vmid>`, or `<vmid>` when no name was given */
  realName?: string;
  /** the server has passed `VM creation > creating VM`: a VM with this VMID exists (or did) */
  vmCreated: boolean;
  /** the install reported `VM installation completed` */
  completed: boolean;
}

/** The five failure shapes of the wire doc, plus the client-side ends. */
export type FailureShape =
  | "error-event" // status: "error" (or a named `event: error` frame), then close
  | "bare-message" // data: {"message": ...} and no close
  | "no-completion" // close, no error, but no completion mark
  | "connection-lost" // the stream ended or broke without close
  | "idle-timeout" // silent for longer than the idle timeout
  | "overall-timeout" // the operation ran longer than allowed
  | "stream-error" // an `sse_error` frame: the stream failed, the operation may go on
  | "headers-timeout" // no answer's headers within the headers limit: the server never began
  | "aborted"; // the caller's AbortSignal fired

/** A recoverable server error that was followed by its recovery. */
export interface StreamWarning {
  step: string;
  message: string;
}

export interface OperationSuccess {
  kind: OperationKind;
  warnings: StreamWarning[];
  /** last lines of output, bounded */
  tail: string[];
  /** last event id seen, when the server sends ids */
  lastEventId?: string;
}

export interface InstallSuccess extends OperationSuccess {
  kind: "install";
  facts: InstallFacts & { vmid: number; ip: string; completed: true };
}
