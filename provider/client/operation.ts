// One streamed operation over HTTP (install, start, reboot, set/node): send the
// request with the watchdog already running, turn answers that are no event
// stream into typed errors, and hand the body to the operation reader with a
// way to close the socket at once.
import type { Dispatcher } from "undici";
import type { InstallOptions } from "./api";
import type { Connection } from "./pool";
import { HttpStatusError, OperationFailedError, ResponseShapeError, type ErrorContext } from "./errors";
import { bodyKind, contentType, requestHeaders, serverWords, transportError } from "./http";
import { Watchdog, type StopCause } from "./stream/liveness";
import { readOperation } from "./stream/reader";
import type { InstallFacts, InstallSuccess, OperationKind, OperationSuccess } from "./stream/types";

/** Most of a non-2xx (or JSON) streamed answer read for its error message. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

export interface OperationRequest {
  kind: OperationKind;
  /** under /api, e.g. "/vm/101/start"; every streamed endpoint is a POST */
  path: string;
  ctx: ErrorContext;
  json?: unknown;
  /** install: the request's `name`, for the VM's real name */
  requestName?: string;
}

export async function runOperation(
  conn: Connection,
  req: OperationRequest,
  opts: InstallOptions,
): Promise<OperationSuccess | InstallSuccess> {
  const { kind, ctx } = req;
  // The limits run from the moment the request is sent: a server that accepts the
  // connection and never answers is as dead as one that stops mid-stream.
  const dog = new Watchdog({
    idleMs: opts.idleTimeoutMs ?? conn.streamIdleTimeoutMs,
    overallMs: opts.overallTimeoutMs ?? conn.streamOverallTimeoutMs,
    headersMs: opts.headersTimeoutMs ?? conn.streamHeadersTimeoutMs,
    signal: opts.signal,
    clock: opts.clock,
  });
  if (dog.stopped) {
    dog.dispose();
    throw stoppedBeforeAnswer(kind, dog.stopped, ctx);
  }
  // Aborting this controller destroys the socket: undici's request honours it before and
  // after the answer's headers.
  const controller = new AbortController();
  dog.onStop((cause) => controller.abort(cause.kind === "aborted" ? cause.reason : new Error(cause.kind)));
  try {
    const res = await send(conn, req, dog, controller.signal);
    dog.answered();
    await refuseUnlessStream(res, ctx);
    return await readOperation(
      kind,
      { body: res.body, cancel: (reason) => controller.abort(reason) },
      { ctx, watchdog: dog, onEvent: opts.onEvent, onFacts: opts.onFacts, requestName: req.requestName },
    );
  } finally {
    dog.dispose();
  }
}

/** The POST, up to the answer's headers; a failure is the watchdog's stop when it fired, else the transport's error. */
async function send(
  conn: Connection,
  req: OperationRequest,
  dog: Watchdog,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const body = req.json === undefined ? undefined : JSON.stringify(req.json);
  try {
    return await conn.pool.request({
      method: "POST",
      path: conn.apiBase + req.path,
      headers: { ...requestHeaders(conn, "text/event-stream", body !== undefined), "cache-control": "no-cache" },
      body,
      signal,
      // The watchdog owns waiting here: undici's own timers would end a stream during
      // the server's documented ten-minute silences.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (err) {
    if (dog.stopped) throw stoppedBeforeAnswer(req.kind, dog.stopped, req.ctx, err);
    throw transportError(err, conn, req.ctx, {});
  }
}

/** An answer that is no event stream (an error status, or JSON) is thrown with the server's words. */
async function refuseUnlessStream(res: Dispatcher.ResponseData, ctx: ErrorContext): Promise<void> {
  if (res.statusCode < 200 || res.statusCode > 299) {
    const text = await readSome(res.body, ERROR_BODY_MAX_BYTES);
    throw new HttpStatusError(res.statusCode, serverWords(text, contentType(res)), ctx, bodyKind(text));
  }
  if (contentType(res).includes("application/json")) {
    // Not the server's stream (a proxy or another service answering): its words, not a parse.
    const text = await readSome(res.body, ERROR_BODY_MAX_BYTES);
    throw new ResponseShapeError(
      `${ctx.endpoint} answered ${res.statusCode} with JSON instead of an event stream: ${serverWords(text, "json")}`,
      ctx,
      { body: bodyKind(text) },
    );
  }
}

/** Stopped (cancelled or timed out) before the answer's headers arrived: nothing was read. */
function stoppedBeforeAnswer(
  kind: OperationKind,
  cause: StopCause,
  ctx: ErrorContext,
  err?: unknown,
): OperationFailedError {
  // An install that stopped here had revealed nothing.
  const facts: InstallFacts | undefined = kind === "install" ? { vmCreated: false, completed: false } : undefined;
  return new OperationFailedError({ operation: kind, shape: cause.kind, tail: [], facts }, ctx, {
    cause: cause.kind === "aborted" ? cause.reason : err,
  });
}

/** Reads at most `max` bytes of a body as text, then lets the rest go. */
async function readSome(body: AsyncIterable<Uint8Array>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(Buffer.from(chunk));
      size += chunk.byteLength;
      if (size >= max) break;
    }
  } catch {
    // an error answer cut short still has words worth showing
  }
  return Buffer.concat(chunks).subarray(0, max).toString("utf8");
}
