// Typed errors of the client. Each says what failed: the endpoint, the VMID
// when there is one, the HTTP status, the server's own words, and for streams
// the step and the last lines of output that led there. Each carries a stable
// `code` (undici's pattern: `UND_ERR_SOCKET`), so callers branch on it rather
// than on class names or message texts.
import type { ErrorCode } from "./error-codes";
import type { FailureShape, InstallFacts, OperationKind, StreamWarning } from "./stream/types";

export interface ErrorContext {
  /** e.g. "POST /api/vm/101/start" */
  endpoint: string;
  vmid?: number;
}

/**
 * The code of each failure shape. A stream that broke or went silent
 * (connection-lost, idle-timeout) is GPQ_STREAM_LOST: the server said nothing
 * about the outcome, and it carries on without a listener.
 */
const SHAPE_CODES: Readonly<Record<FailureShape, ErrorCode>> = {
  "error-event": "GPQ_SERVER_ERROR",
  "bare-message": "GPQ_SERVER_REFUSED",
  "no-completion": "GPQ_NO_COMPLETION",
  "connection-lost": "GPQ_STREAM_LOST",
  "idle-timeout": "GPQ_STREAM_LOST",
  "overall-timeout": "GPQ_OVERALL_TIMEOUT",
  "stream-error": "GPQ_STREAM_LOST",
  "headers-timeout": "GPQ_NO_ANSWER",
  aborted: "GPQ_CANCELLED",
};

abstract class GoPveQemuError extends Error {
  readonly endpoint: string;
  readonly vmid?: number;
  abstract readonly code: ErrorCode;
  constructor(message: string, ctx: ErrorContext, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.endpoint = ctx.endpoint;
    this.vmid = ctx.vmid;
  }
}

/** The request never got an answer: refused connection, DNS, TLS, connect or request timeout. */
export class ConnectionError extends GoPveQemuError {
  readonly code: ErrorCode = "GPQ_CONNECTION";
}

/**
 * Nothing listens at the endpoint: the connection was refused (a go-pve-qemu
 * process always listens while it runs; behind a proxy, it is the proxy's).
 */
export function isRefused(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown; errors?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (e.code === "ECONNREFUSED") return true;
    if (Array.isArray(e.errors) && e.errors.some((x) => isRefused(x))) return true;
    e = e.cause as typeof e;
  }
  return false;
}

/**
 * The caller's AbortSignal fired before a plain request got its answer. (A cancelled streamed
 * operation is an OperationFailedError with shape "aborted", which also carries what it learned.)
 * Not a ConnectionError: nothing is wrong with the connection, so it must not be retried as one.
 */
export class CancelledError extends GoPveQemuError {
  readonly code: ErrorCode = "GPQ_CANCELLED";
}

/**
 * What an answer's body is, which says who wrote it:
 * - refusal: go-pve-qemu's own `{"success":false,"message":...}` (model.Response), which its
 *   install handler sends when the body does not bind: the server refused, nothing began;
 * - json: another JSON object; go-pve-qemu sends none on these paths, a gateway does
 *   (`{"message":"Endpoint request timed out"}`);
 * - text: text, an HTML page, or nothing (the server's plain answers, a proxy's error page).
 */
export type AnswerBody = "refusal" | "json" | "text";

/** A non-2xx answer. `serverMessage` is the body's message/error field, or its text. */
export class HttpStatusError extends GoPveQemuError {
  readonly code: ErrorCode = "GPQ_HTTP_STATUS";
  readonly status: number;
  readonly serverMessage: string;
  readonly body: AnswerBody;
  constructor(status: number, serverMessage: string, ctx: ErrorContext, body: AnswerBody = "text") {
    super(
      `${ctx.endpoint}${ctx.vmid !== undefined ? ` (VM ${ctx.vmid})` : ""} answered HTTP ${status}: ${serverMessage}`,
      ctx,
    );
    this.status = status;
    this.serverMessage = serverMessage;
    this.body = body;
  }
}

/** A 2xx answer whose body does not have the documented shape. */
export class ResponseShapeError extends GoPveQemuError {
  readonly code: ErrorCode = "GPQ_RESPONSE_SHAPE";
  /** What the body was; `refusal` is the server's own refusal passed on with a 2xx status (by a proxy, say). */
  readonly body: AnswerBody;
  constructor(message: string, ctx: ErrorContext, options?: { cause?: unknown; body?: AnswerBody }) {
    super(message, ctx, options);
    this.body = options?.body ?? "text";
  }
}

/** A streamed operation (install, start, reboot, set/node) that did not succeed. */
export class OperationFailedError extends GoPveQemuError {
  /** by shape: see SHAPE_CODES */
  readonly code: ErrorCode;
  readonly operation: OperationKind;
  readonly shape: FailureShape;
  /** the server's message for the failure, when it gave one */
  readonly serverMessage?: string;
  /** the step the operation was in when it failed */
  readonly step?: string;
  /** the named frame that carried the failure (`error`, `sse_error`), when not a step's own event */
  readonly frame?: string;
  /** last lines of output that led there (bounded) */
  readonly tail: string[];
  readonly warnings: StreamWarning[];
  /** install only: what the stream had revealed before it failed */
  readonly facts?: InstallFacts;
  /** id of the last fully processed frame, when the server sends ids */
  readonly lastEventId?: string;
  constructor(
    init: {
      operation: OperationKind;
      shape: FailureShape;
      serverMessage?: string;
      step?: string;
      frame?: string;
      tail: string[];
      warnings?: StreamWarning[];
      facts?: InstallFacts;
      lastEventId?: string;
    },
    ctx: ErrorContext,
    options?: { cause?: unknown },
  ) {
    super(describeFailure(init, ctx), ctx, options);
    this.code = SHAPE_CODES[init.shape];
    this.operation = init.operation;
    this.shape = init.shape;
    this.serverMessage = init.serverMessage;
    this.step = init.step;
    this.frame = init.frame;
    this.tail = init.tail;
    this.warnings = init.warnings ?? [];
    this.facts = init.facts;
    this.lastEventId = init.lastEventId;
  }
}

const SHAPE_TEXT: Record<FailureShape, string> = {
  "error-event": "the server reported an error",
  "bare-message": "the server refused the operation",
  "no-completion": "the stream closed without the operation's completion mark",
  "connection-lost": "the connection ended before the stream closed",
  "idle-timeout": "the stream went silent for longer than the idle timeout",
  "overall-timeout": "the operation took longer than its overall timeout",
  "stream-error": "the stream reported its own failure",
  "headers-timeout": "no answer came (not even the stream's headers)",
  aborted: "the operation was cancelled",
};

function describeFailure(
  init: { operation: OperationKind; shape: FailureShape; serverMessage?: string; step?: string; tail: string[] },
  ctx: ErrorContext,
): string {
  const vm = ctx.vmid !== undefined ? ` of VM ${ctx.vmid}` : "";
  const at = init.step ? ` at step "${init.step}"` : "";
  const said = init.serverMessage ? `: ${init.serverMessage}` : "";
  const tail = init.tail.length > 0 ? `\nlast output:\n  ${init.tail.slice(-5).join("\n  ")}` : "";
  return `${init.operation}${vm} failed${at} (${SHAPE_TEXT[init.shape]})${said}${tail}`;
}
