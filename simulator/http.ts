// The HTTP surface that gin gives the real server: its CORS middleware's
// headers on every answer, c.String / c.JSON content types, gin's 404, and
// c.ClientIP() (which, with gin's default "trust all proxies", believes
// X-Forwarded-For and X-Real-IP - the way to reach ALLOW_IPS refusals from
// 127.0.0.1).
import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";

export const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  clientIp: string;
  origin: string;
  /** The gateway's /24 as `192.168.0.*`: what the server's getSubnet() finds. */
  subnet: string;
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** gin's ClientIP() with its defaults: X-Forwarded-For, then X-Real-IP, then the peer. */
export function clientIp(req: IncomingMessage): string {
  for (const header of ["x-forwarded-for", "x-real-ip"]) {
    const raw = req.headers[header];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (!value) continue;
    const items = value.split(",").map((s) => s.trim());
    // Every hop is a trusted proxy, so the leftmost address wins - if all parse.
    if (items.every((ip) => isIP(ip) !== 0)) return items[0] as string;
  }
  const peer = req.socket.remoteAddress ?? "";
  return peer.startsWith("::ffff:") ? peer.slice(7) : peer;
}

function isPrivateV4(ip: string): boolean {
  if (isIP(ip) !== 4) return false;
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/** The headers of the server's CORS middleware, set on every answer. */
export function corsHeaders(ctx: Ctx): Record<string, string> {
  const headers: Record<string, string> = {};
  let host = ctx.origin.replace(/^https?:\/\//, "");
  const colon = host.indexOf(":");
  if (colon !== -1) host = host.slice(0, colon);
  const prefix = ctx.subnet.replace(/\*$/, "");
  if (ctx.origin !== "" && isPrivateV4(host) && host.startsWith(prefix)) {
    headers["Access-Control-Allow-Origin"] = ctx.origin;
  } else if (ctx.origin === "") {
    headers["Access-Control-Allow-Origin"] = ctx.subnet;
  }
  headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS";
  headers["Access-Control-Allow-Headers"] = "Content-Type";
  headers["Access-Control-Allow-Credentials"] = "true";
  return headers;
}

/** The headers the SSE services set over the middleware's (Origin echoed, or removed when empty). */
export function sseHeaders(ctx: Ctx): Record<string, string> {
  return goOrder(sseHeaderMap(ctx));
}

function sseHeaderMap(ctx: Ctx): Record<string, string> {
  const headers = corsHeaders(ctx);
  delete headers["Access-Control-Allow-Origin"];
  if (ctx.origin !== "") headers["Access-Control-Allow-Origin"] = ctx.origin;
  headers["Access-Control-Allow-Headers"] = "Cache-Control";
  headers["Content-Type"] = "text/event-stream";
  headers["Cache-Control"] = "no-cache";
  headers["Connection"] = "keep-alive";
  return headers;
}

/**
 * Go writes a response's header map sorted by name (Header.Write), then the
 * server's own Date, then Content-Length when the handler wrote the whole body
 * before returning (a flushed body goes chunked instead). Node writes the
 * given headers in order and adds its own after them, so giving Date and
 * Content-Length here keeps the bytes in Go's order and framing.
 */
export function goOrder(headers: Record<string, string>, body?: string): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(headers).sort()) sorted[key] = headers[key] as string;
  sorted["Date"] = new Date().toUTCString();
  if (body !== undefined) sorted["Content-Length"] = String(Buffer.byteLength(body));
  return sorted;
}

/** c.String(status, text). */
export function sendText(ctx: Ctx, status: number, text: string): void {
  ctx.res.writeHead(status, goOrder({ ...corsHeaders(ctx), "Content-Type": TEXT }, text));
  ctx.res.end(text);
}

/** c.JSON(status, value) with the value already encoded the Go way. */
export function sendJson(ctx: Ctx, status: number, json: string): void {
  ctx.res.writeHead(status, goOrder({ ...corsHeaders(ctx), "Content-Type": JSON_TYPE }, json));
  ctx.res.end(json);
}

/** gin's NoRoute answer (the CORS middleware runs for it too). */
export function sendNotFound(ctx: Ctx): void {
  const body = "404 page not found";
  ctx.res.writeHead(404, goOrder({ ...corsHeaders(ctx), "Content-Type": "text/plain" }, body));
  ctx.res.end(body);
}

/** The CORS middleware ends every OPTIONS request, routed or not, with 204. */
export function sendPreflight(ctx: Ctx): void {
  ctx.res.writeHead(204, goOrder(corsHeaders(ctx)));
  ctx.res.end();
}

/**
 * gin's redirectTrailingSlash: http.Redirect with 301 for GET, 307 otherwise.
 * No middleware runs for it (no CORS headers); GET gets Go's small HTML body,
 * other methods none.
 */
export function sendRedirect(ctx: Ctx, location: string): void {
  if (ctx.method === "GET") {
    const body = `<a href="${htmlEscape(location)}">Moved Permanently</a>.\n\n`;
    ctx.res.writeHead(301, goOrder({ "Content-Type": "text/html; charset=utf-8", Location: location }, body));
    ctx.res.end(body);
    return;
  }
  ctx.res.writeHead(307, goOrder({ Location: location }, ""));
  ctx.res.end();
}

/** Go's html.EscapeString set, as http.Redirect uses it. */
function htmlEscape(s: string): string {
  return s.replace(/[&'<>"]/g, (c) => ({ "&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;" })[c] ?? c);
}
