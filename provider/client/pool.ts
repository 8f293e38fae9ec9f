// One connection setting -> one pooled undici dispatcher, the headers sent with
// every request, and the timeouts with their defaults. The pool reuses keep-alive
// connections between calls; streamed operations hold a connection each for as
// long as they run, so the pool sets no connection limit (a limit would make a
// quick `status` call wait behind hour-long installs).
import { Pool } from "undici";
import type { ConnectionOptions } from "./api";

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** A stream's liveness when the connection gives none; the settings' defaults come from here. */
export const DEFAULT_STREAM_TIMEOUTS = {
  idleTimeoutMs: 15 * 60_000,
  overallTimeoutMs: 60 * 60_000,
  /** Past the timeouts of the gateways that buffer whole answers (API gateways 29 s, Kong 60 s, Cloudflare 100 s). */
  headersTimeoutMs: 120_000,
} as const;

const USER_AGENT = "go-pve-qemu-pulumi/0.1 (+undici)";

export interface Connection {
  readonly pool: Pool;
  /** "/api" under the endpoint's own path, e.g. "/proxy/pve/api" */
  readonly apiBase: string;
  /** for messages: "http://host:port" */
  readonly origin: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly streamIdleTimeoutMs: number;
  readonly streamOverallTimeoutMs: number;
  readonly streamHeadersTimeoutMs: number;
}

export function openConnection(options: ConnectionOptions): Connection {
  let url: URL;
  try {
    url = new URL(options.endpoint);
  } catch {
    throw new TypeError(
      `endpoint ${JSON.stringify(options.endpoint)} is not a URL (expected e.g. http://192.168.0.11:8080)`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`endpoint ${options.endpoint} must be http:// or https://`);
  }
  if (url.search || url.hash) throw new TypeError(`endpoint ${options.endpoint} must not have a query or fragment`);
  // Not sent by a pool that connects to the origin, and the endpoint is printed: refused, never shown.
  if (url.username || url.password) {
    throw new TypeError(
      `endpoint ${url.protocol}//***@${url.host} must not carry a user name or password; send credentials as a header or token`,
    );
  }

  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const https = url.protocol === "https:";
  const pool = new Pool(url.origin, {
    connect: {
      timeout: connectTimeoutMs,
      // TLS settings only mean something for https; undici ignores them for plain TCP.
      ...(https && options.caCert ? { ca: options.caCert } : {}),
      ...(https && options.insecureSkipVerify ? { rejectUnauthorized: false } : {}),
    },
    // Per-request timeouts are set on each request (plain vs streamed differ).
    keepAliveTimeout: 4_000,
  });

  return {
    pool,
    apiBase: `${url.pathname.replace(/\/+$/, "")}/api`,
    origin: url.origin,
    headers: baseHeaders(options),
    connectTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.idleTimeoutMs,
    streamOverallTimeoutMs: options.streamOverallTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.overallTimeoutMs,
    streamHeadersTimeoutMs: options.streamHeadersTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.headersTimeoutMs,
  };
}

function baseHeaders(options: ConnectionOptions): Record<string, string> {
  const headers: Record<string, string> = { "user-agent": USER_AGENT };
  // Extra headers first, so that the token (when given) is the one Authorization sent.
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value))
      throw new TypeError(`header ${JSON.stringify(name)} contains a line break`);
    headers[name.toLowerCase()] = value;
  }
  if (options.token !== undefined && options.token !== "") headers.authorization = `Bearer ${options.token}`;
  return headers;
}
