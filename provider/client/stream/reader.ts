// The operation reader: a response body (async iterable of bytes) in, the
// operation's success out, or an OperationFailedError naming the failure shape.
// The pipeline does the decoding; the reader owns the waiting: idle and overall
// limits, the caller's AbortSignal, and closing the connection at once when any
// of them fires (the server keeps working either way; see the wire doc).
import { OperationFailedError, type ErrorContext } from "../errors";
import { Watchdog, type StopCause, type WatchdogClock } from "./liveness";
import { OperationPipeline, type PipelineOptions } from "./pipeline";
import type { InstallSuccess, OperationKind, OperationSuccess } from "./types";
import type { OutcomeFailure, StreamEnd } from "./verdict";

export interface ByteSource {
  body: AsyncIterable<Uint8Array>;
  /** Close the underlying connection now (destroy the socket). Called on abort and timeouts. */
  cancel?(reason: unknown): void;
}

export interface ReadOperationOptions extends PipelineOptions {
  /** names the endpoint and VMID in errors */
  ctx: ErrorContext;
  /** Either a running watchdog (started before the request was sent) ... */
  watchdog?: Watchdog;
  /** ... or the limits to start one with. 0 disables a limit. */
  idleTimeoutMs?: number;
  overallTimeoutMs?: number;
  signal?: AbortSignal;
  /** The watchdog's time when it starts one (default: the system's). */
  clock?: WatchdogClock;
  /**
   * After the operation's `close` event, how long to wait for the server to end the
   * response (so the connection can be reused) before closing it. Default 2 s.
   */
  closeGraceMs?: number;
}

const DEFAULT_CLOSE_GRACE_MS = 2000;

/** Reads one operation stream to its end and decides the outcome. */
export async function readOperation(
  kind: "install",
  source: ByteSource,
  options: ReadOperationOptions,
): Promise<InstallSuccess>;
export async function readOperation(
  kind: OperationKind,
  source: ByteSource,
  options: ReadOperationOptions,
): Promise<OperationSuccess>;
export async function readOperation(
  kind: OperationKind,
  source: ByteSource,
  options: ReadOperationOptions,
): Promise<OperationSuccess | InstallSuccess> {
  const dog = options.watchdog ?? startWatchdog(options);
  const pipeline = new OperationPipeline(kind, options);
  const body = new Body(source, dog);
  let ended: Ended;
  try {
    ended = await readToEnd(body, dog, pipeline, options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
  } catch (err) {
    // A caller's callback (onEvent/onFacts) threw: stop reading and let the caller see its error.
    body.cancel(err);
    dog.dispose();
    throw err;
  }
  closeAfter(body, dog, ended);
  if (!options.watchdog) dog.dispose();
  else dog.onStop(undefined);

  const outcome = pipeline.finish(ended.end);
  if (outcome.ok) return outcome.value;
  throw failureError(kind, outcome.failure, options.ctx, ended);
}

function startWatchdog(options: ReadOperationOptions): Watchdog {
  return new Watchdog({
    idleMs: options.idleTimeoutMs ?? 0,
    overallMs: options.overallTimeoutMs ?? 0,
    signal: options.signal,
    clock: options.clock,
  });
}

const STOPPED = Symbol("stopped");
type Step = IteratorResult<Uint8Array> | { error: unknown } | typeof STOPPED;

/** How the stream ended, and the error that ended it when one did. */
interface Ended {
  end: StreamEnd;
  cause?: unknown;
}

/** The response body, chunk by chunk; the watchdog closes it at once and wakes the read waiting on it. */
class Body {
  private readonly iterator: AsyncIterator<Uint8Array>;
  private wake: ((r: Step) => void) | undefined;
  private cancelled = false;

  constructor(
    private readonly source: ByteSource,
    private readonly dog: Watchdog,
  ) {
    this.iterator = source.body[Symbol.asyncIterator]();
    dog.onStop((cause) => {
      this.cancel(stopError(cause));
      this.wake?.(STOPPED);
    });
  }

  // The next chunk or the watchdog, whichever comes first. A fresh promise per
  // chunk, woken through `wake`: racing every next() against one long-lived
  // promise would pile reactions onto it for the life of the stream.
  next(): Promise<Step> {
    if (this.dog.stopped) return Promise.resolve(STOPPED);
    return new Promise<Step>((resolve) => {
      const settle = (r: Step): void => {
        if (this.wake === settle) this.wake = undefined;
        resolve(r);
      };
      this.wake = settle;
      this.iterator.next().then(settle, (error: unknown) => settle({ error }));
    });
  }

  /** Closes the underlying connection now (once). */
  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    try {
      this.source.cancel?.(reason);
    } finally {
      // Ends a generator-style source too; a pending next() then settles or rejects unobserved.
      this.iterator.return?.().catch(() => undefined);
    }
  }
}

/** Feeds the pipeline chunk by chunk until the stream ends: by the server, a break, or the watchdog. */
async function readToEnd(body: Body, dog: Watchdog, pipeline: OperationPipeline, closeGraceMs: number): Promise<Ended> {
  let graceArmed = false;
  for (;;) {
    const step = await body.next();
    if (step === STOPPED) return { end: endOf(dog.stopped!) };
    if ("error" in step) {
      const end: StreamEnd = dog.stopped ? endOf(dog.stopped) : { kind: "broken", detail: describe(step.error) };
      return { end, cause: step.error };
    }
    if (step.done) return { end: { kind: "eof" } };
    dog.touch();
    pipeline.push(step.value);
    if (pipeline.broken !== undefined) {
      body.cancel(new Error(pipeline.broken));
      return { end: { kind: "broken", detail: pipeline.broken } };
    }
    if (pipeline.closed && !graceArmed) {
      // The outcome is decided; give the server a moment to end the response.
      graceArmed = true;
      dog.setIdle(closeGraceMs);
    }
  }
}

/** Unless the server ended the response, the connection is closed: after a stop, or with what broke it. */
function closeAfter(body: Body, dog: Watchdog, { end, cause }: Ended): void {
  if (end.kind === "broken") body.cancel(cause ?? new Error(end.detail));
  else if (end.kind !== "eof") body.cancel(stopError(dog.stopped!));
}

function failureError(
  kind: OperationKind,
  failure: OutcomeFailure,
  ctx: ErrorContext,
  { end, cause }: Ended,
): OperationFailedError {
  const vmid = ctx.vmid ?? failure.facts?.vmid;
  const why = cause !== undefined ? { cause } : end.kind === "aborted" ? { cause: end.reason } : undefined;
  return new OperationFailedError({ operation: kind, ...failure }, { endpoint: ctx.endpoint, vmid }, why);
}

function endOf(cause: StopCause): StreamEnd {
  return cause.kind === "aborted"
    ? { kind: "aborted", reason: cause.reason }
    : { kind: cause.kind, afterMs: cause.afterMs };
}

function stopError(cause: StopCause): Error {
  if (cause.kind === "aborted") {
    return cause.reason instanceof Error ? cause.reason : new DOMException("The operation was aborted", "AbortError");
  }
  const what = { "headers-timeout": "no answer", "idle-timeout": "no data", "overall-timeout": "not finished" }[
    cause.kind
  ];
  return new Error(`${what} within ${cause.afterMs} ms`);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
