// What can stand between a client and the server, as fault rules make it:
// a proxy that refuses before the server saw anything (`http`), a gateway
// that passes the request on but buffers the whole response and answers on
// its own clock (`gateway`), and a black hole that accepted the connection
// and never answers (`hang`). The real server flushes its event-stream headers
// before any work, so a client that got no such headers knows no work began
// - unless a buffering gateway sits in front, which these let tests model.
import type { ServerResponse } from "node:http";
import { SimulatorClosed } from "./clock";
import type { SimCore } from "./core";
import { TEXT } from "./http";
import type { FaultRule } from "./fault-rules";

/** An API gateway's usual integration timeout (simulated ms). */
const GATEWAY_MS = 29_000;
const GATEWAY_BODY = '{"message":"Endpoint request timed out"}';

/** A response that swallows everything: the handler acts, nobody hears it. */
export function sink(): ServerResponse {
  const s = {
    destroyed: false,
    writableEnded: false,
    headersSent: false,
    writeHead: () => s,
    setHeader: () => s,
    flushHeaders: () => undefined,
    write: () => true,
    end: () => s,
    on: () => s,
    destroy: () => s,
  };
  return s as unknown as ServerResponse;
}

/**
 * Answers the request the way `rule` (http, gateway or hang) says. `serve`
 * runs the operation server-side against the response it is given.
 */
export function answerInFront(
  core: SimCore,
  rule: FaultRule,
  res: ServerResponse,
  serve: (res: ServerResponse) => Promise<void> | void,
): void {
  if (rule.kind === "http") {
    res.writeHead(rule.status ?? 502, { "Content-Type": rule.contentType ?? TEXT });
    res.end(rule.body ?? "");
    return;
  }
  // Both keep the connection open for a while: close() must be able to end it.
  core.holdOpen(() => res.destroy());
  if (rule.kind === "hang") return;

  // The operation runs exactly as without the gateway; its bytes go nowhere.
  core.track((async () => serve(sink()))());
  const ms = rule.ms ?? GATEWAY_MS;
  core.clock.sleep(ms).then(
    () => {
      if (res.destroyed || res.writableEnded) return;
      const status = rule.status ?? 504;
      core.log(`gateway answers ${status} after ${ms} ms`);
      res.writeHead(status, { "Content-Type": rule.contentType ?? "application/json" });
      res.end(rule.body ?? GATEWAY_BODY);
    },
    (err: unknown) => {
      if (!(err instanceof SimulatorClosed)) core.log(`gateway failed: ${String(err)}`);
    },
  );
}
