// The operation reader: a response body (async iterable of bytes) in, the
// operation's success out, or an OperationFailedError naming the failure shape.
// pipeline.ts does the decoding; this file owns the waiting: idle and overall
// limits, the caller's AbortSignal, and closing the connection at once when any
// of them fires (the server keeps working either way; see the wire doc).
import { OperationFailedError, type ErrorContext } from "../errors";
import { Watchdog, type StopCause, type WatchdogClock } from "./liveness";
import type { StreamEnd } from "./outcome";
import { OperationPipeline, type PipelineOptions } from "./pipeline";
import type { InstallSuccess, OperationKind, OperationSuccess } from "./types";

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

export const DEFAULT_CLOSE_GRACE_MS = 2000;

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
  const dog =
    options.watchdog ??
    new Watchdog({
      idleMs: options.idleTimeoutMs ?? 0,
      overallMs: options.overallTimeoutMs ?? 0,
      signal: options.signal,
      clock: options.clock,
    });
  const pipeline = new OperationPipeline(kind, options);
  const iterator = source.body[Symbol.asyncIterator]();
  let wake: ((r: Step) => void) | undefined;
  let cancelled = false;
  const cancel = (reason: unknown) => {
    if (cancelled) return;
    cancelled = true;
    try {
      source.cancel?.(reason);
    } finally {
      // Ends a generator-style source too; a pending next() then settles or rejects unobserved.
      iterator.return?.().catch(() => undefined);
    }
  };
  dog.onStop((cause) => {
    cancel(stopError(cause));
    wake?.(STOPPED);
  });

  let end: StreamEnd | undefined;
  let cause: unknown;
  try {
    let graceArmed = false;
    while (end === undefined) {
      const step = await nextChunk(iterator, dog, (w) => (wake = w));
      wake = undefined;
      if (step === STOPPED) {
        end = endOf(dog.stopped!);
      } else if ("error" in step) {
        cause = step.error;
        end = dog.stopped ? endOf(dog.stopped) : { kind: "broken", detail: describe(step.error) };
      } else if (step.done) {
        end = { kind: "eof" };
      } else {
        dog.touch();
        pipeline.push(step.value);
        if (pipeline.broken !== undefined) {
          cancel(new Error(pipeline.broken));
          end = { kind: "broken", detail: pipeline.broken };
        } else if (pipeline.closed && !graceArmed) {
          // The outcome is decided; give the server a moment to end the response.
          graceArmed = true;
          dog.setIdle(options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
        }
      }
    }
  } catch (err) {
    // A caller's callback (onEvent/onFacts) threw: stop reading and let the caller see its error.
    cancel(err);
    dog.dispose();
    throw err;
  }
  if (end.kind !== "eof" && end.kind !== "broken") cancel(stopError(dog.stopped!));
  if (end.kind === "broken") cancel(cause ?? new Error(end.detail));
  if (!options.watchdog) dog.dispose();
  else dog.onStop(undefined);

  const outcome = pipeline.finish(end);
  if (outcome.ok) return outcome.value;
  const { failure } = outcome;
  const vmid = options.ctx.vmid ?? failure.facts?.vmid;
  throw new OperationFailedError(
    { operation: kind, ...failure },
    { endpoint: options.ctx.endpoint, vmid },
    cause !== undefined || end.kind === "aborted"
      ? { cause: cause ?? (end as { reason?: unknown }).reason }
      : undefined,
  );
}

const STOPPED = Symbol("stopped");
type Step = IteratorResult<Uint8Array> | { error: unknown } | typeof STOPPED;

// Waits for the next chunk or for the watchdog, whichever comes first. A fresh
// promise per chunk, woken through `setWake`: racing every next() against one
// long-lived promise would pile reactions onto it for the life of the stream.
function nextChunk(
  iterator: AsyncIterator<Uint8Array>,
  dog: Watchdog,
  setWake: (wake: (r: Step) => void) => void,
): Promise<Step> {
  if (dog.stopped) return Promise.resolve(STOPPED);
  return new Promise<Step>((resolve) => {
    setWake(resolve);
    iterator.next().then(resolve, (error: unknown) => resolve({ error }));
  });
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
  return new Error(`${cause.kind === "idle-timeout" ? "no data" : "not finished"} within ${cause.afterMs} ms`);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === "string" ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
