// Sending one request over the pool, and turning what can go wrong on the way
// into the client's typed errors. Plain (non-streamed) answers are read whole
// here; streamed answers are handed on to the operation reader.
import type { Dispatcher } from "undici";
import type { Connection } from "./pool";
import { CancelledError, ConnectionError, HttpStatusError, type AnswerBody, type ErrorContext } from "./errors";
import { ErrorBodySchema, RefusalBodySchema } from "./schemas";

export type Method = "GET" | "POST";

export interface PlainAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** "POST /api/vm/101/start": how errors name the call. */
export function label(conn: Connection, method: Method, path: string): string {
  return `${method} ${conn.apiBase}${path}`;
}

export function requestHeaders(conn: Connection, accept: string, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...conn.headers, accept };
  if (hasBody) headers["content-type"] = "application/json";
  return headers;
}

/** A plain request: answer read whole within requestTimeoutMs (or the call's timeoutMs); non-2xx -> HttpStatusError. */
export async function requestPlain(
  conn: Connection,
  method: Method,
  path: string,
  ctx: ErrorContext,
  opts: { json?: unknown; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<PlainAnswer> {
  const timeoutMs = opts.timeoutMs ?? conn.requestTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
  let answer: PlainAnswer;
  try {
    const res = await conn.pool.request({
      method,
      path: conn.apiBase + path,
      headers: requestHeaders(conn, "application/json, text/plain;q=0.9, */*;q=0.1", body !== undefined),
      body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    answer = { status: res.statusCode, contentType: contentType(res), text: await res.body.text() };
  } catch (err) {
    throw transportError(err, conn, ctx, { user: opts.signal, timeout, timeoutMs });
  }
  if (answer.status < 200 || answer.status > 299) {
    throw new HttpStatusError(answer.status, serverWords(answer.text, answer.contentType), ctx, bodyKind(answer.text));
  }
  return answer;
}

export function contentType(res: Dispatcher.ResponseData): string {
  const v = res.headers["content-type"];
  return (Array.isArray(v) ? v[0] : v) ?? "";
}

/**
 * What a request failed on, as a typed error: the caller cancelled (CancelledError), or the
 * request got no answer (ConnectionError: refused, DNS, TLS, connect or request timeout).
 */
export function transportError(
  err: unknown,
  conn: Connection,
  ctx: ErrorContext,
  signals: { user?: AbortSignal; timeout?: AbortSignal; timeoutMs?: number },
): Error {
  const where = `${ctx.endpoint}${ctx.vmid !== undefined ? ` (VM ${ctx.vmid})` : ""} to ${conn.origin}`;
  if (signals.user?.aborted) return new CancelledError(`${where} was cancelled`, ctx, { cause: signals.user.reason });
  if (signals.timeout?.aborted) {
    return new ConnectionError(`${where} got no answer within ${signals.timeoutMs} ms`, ctx, { cause: err });
  }
  return new ConnectionError(`${where} failed: ${describeTransport(err, conn, signals.timeoutMs)}`, ctx, {
    cause: err,
  });
}

function describeTransport(err: unknown, conn: Connection, timeoutMs = conn.requestTimeoutMs): string {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code;
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (is go-pve-qemu running and listening there?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found (${code})`;
    case "UND_ERR_CONNECT_TIMEOUT":
      return `no connection within ${conn.connectTimeoutMs} ms`;
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
      return `no answer within ${timeoutMs} ms`;
    case "UND_ERR_SOCKET":
    case "ECONNRESET":
      return `the connection was closed by the other side (${code})`;
  }
  const msg = e?.message ?? String(err);
  return code ? `${msg} (${code})` : msg;
}

/**
 * The server's own words in an error answer: the JSON `message` / `error` field, or the
 * text. go-pve-qemu's set/node writes a text line and then an SSE-style `data: {...}` line
 * into one 400 answer; the text part is what it means.
 */
export function serverWords(text: string, contentType = ""): string {
  const trimmed = text.trim();
  if (trimmed.startsWith("{") || contentType.includes("json")) {
    try {
      const body = ErrorBodySchema.safeParse(JSON.parse(trimmed));
      if (body.success) {
        const { message, error } = body.data;
        const words = message ?? (typeof error === "string" ? error : error?.message);
        if (words !== undefined && words !== "") return limit(words);
      }
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  const sse = trimmed.indexOf("data: {");
  const words = sse > 0 ? trimmed.slice(0, sse).trim() : trimmed;
  return words === "" ? "(empty answer)" : limit(words);
}

/** Who wrote a body, by its shape (see AnswerBody). */
export function bodyKind(text: string): AnswerBody {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return "text";
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "text";
  return RefusalBodySchema.safeParse(v).success ? "refusal" : "json";
}

function limit(s: string, max = 2000): string {
  return s.length > max ? `${s.slice(0, max)}… [${s.length - max} more chars]` : s;
}
