// The node:http server: routes the 13 endpoints the way gin's router does
// (exact paths, 404 "404 page not found" otherwise, OPTIONS answered by the
// CORS middleware), applies the faults in front of the server (http, gateway,
// hang) and connection faults of the plain endpoints, and hands /_sim/* to
// the admin endpoints.
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { handleAdmin } from "./admin";
import { SimulatorClosed } from "./clock";
import type { Controls } from "./controls";
import type { SimCore } from "./core";
import { answerInFront, sink } from "./front";
import { parseVmid } from "./guards";
import { clientIp, readBody, sendNotFound, sendPreflight, sendRedirect, TEXT, type Ctx } from "./http";
import { handleInstall } from "./install";
import { handleSetNode, handleStartOrReboot } from "./power";
import { STEPS } from "./fault-rules";
import type { Op } from "./fault-rules";
import { actionOp, handleAction, handleHealth, handleList, handleStatus } from "./simple";

interface Route {
  op: Op;
  rawId?: string;
  run: (ctx: Ctx) => Promise<void> | void;
  streamed: boolean;
}

function match(core: SimCore, method: string, path: string): Route | null {
  if (method === "GET" && path === "/api/health") return { op: "health", run: handleHealth, streamed: false };
  if (method === "GET" && path === "/api/vm/list")
    return { op: "list", run: (c) => handleList(core, c), streamed: false };
  if (method === "POST" && path === "/api/vm/install") {
    return { op: "install", run: (c) => handleInstall(core, c), streamed: true };
  }
  const m = /^\/api\/vm\/([^/]+)\/(status|start|reboot|stop|shutdown|destroy|set\/(?:cpu|memory|disk|node))$/.exec(
    path,
  );
  if (!m) return null;
  const rawId = m[1] as string;
  const action = m[2] as string;
  if (action === "status") {
    return method === "GET" ? { op: "status", rawId, run: (c) => handleStatus(core, c, rawId), streamed: false } : null;
  }
  if (method !== "POST") return null;
  if (action === "start" || action === "reboot") {
    return { op: action, rawId, run: (c) => handleStartOrReboot(core, c, rawId, action), streamed: true };
  }
  if (action === "set/node") return { op: "setNode", rawId, run: (c) => handleSetNode(core, c, rawId), streamed: true };
  const op = actionOp(action);
  return op ? { op, rawId, run: (c) => handleAction(core, c, rawId, action), streamed: false } : null;
}

async function serveApi(
  core: SimCore,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: string,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the raw path: gin would not match it either
  }
  const method = req.method ?? "GET";
  const ctx: Ctx = {
    req,
    res,
    method,
    path,
    query: url.searchParams,
    body,
    clientIp: clientIp(req),
    origin: (req.headers.origin as string | undefined) ?? "",
    subnet: `${core.cfg.gateway.split(".").slice(0, 3).join(".")}.*`,
  };
  core.log(`${method} ${path} from ${ctx.clientIp}`);
  if (method === "OPTIONS") return sendPreflight(ctx);
  const route = match(core, method, path);
  if (!route) {
    // gin's RedirectTrailingSlash: the route exists without the slash.
    if (path.length > 1 && path.endsWith("/") && match(core, method, path.slice(0, -1))) {
      const rawPath = url.pathname.slice(0, -1);
      return sendRedirect(ctx, rawPath + url.search);
    }
    core.count("notFound");
    return sendNotFound(ctx);
  }
  core.count(route.op);

  const vmid = route.rawId === undefined ? undefined : (parseVmid(route.rawId) ?? undefined);
  const vm = vmid === undefined ? undefined : core.store.vms.get(vmid);
  const names = vm ? [vm.name, vm.requestedName].filter((n) => n !== "") : [];
  const query = { op: route.op, step: STEPS[route.op][0] as string, vmid, names };

  const front = core.faults.take(query, ["http", "gateway", "hang"]);
  if (front) {
    answerInFront(core, front, res, (unheard) => route.run({ ...ctx, res: unheard }));
    return;
  }
  if (!route.streamed) {
    // Plain endpoints: the connection is cut (or left hanging) while the
    // server still does the work.
    const cut = core.faults.take(query, ["drop", "stall"]);
    if (cut) {
      if (cut.kind === "drop") {
        core.stats.connectionsDropped++;
        res.destroy();
      } else {
        core.holdOpen(() => res.destroy());
      }
      const work = Promise.resolve(route.run({ ...ctx, res: sink() }));
      core.track(work);
      return;
    }
  }
  await route.run(ctx);
}

export interface Listening {
  server: http.Server;
  port: number;
  stop(): Promise<void>;
}

/** Listens on 127.0.0.1:`port` (default: the configured port; 0 = any free one). */
export async function listen(core: SimCore, controls: Controls, port = core.cfg.port): Promise<Listening> {
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        const path = (req.url ?? "/").split("?")[0] ?? "/";
        if (path === "/_sim" || path.startsWith("/_sim/")) {
          core.count("admin");
          await handleAdmin(controls, req.method ?? "GET", path, body, res);
          return;
        }
        await serveApi(core, req, res, body);
      } catch (err) {
        if (!(err instanceof SimulatorClosed)) core.log(`request failed: ${String(err)}`);
        if (!res.headersSent && !core.closed) {
          res.writeHead(500, { "Content-Type": TEXT });
          res.end("simulator error\n");
        } else {
          res.destroy();
        }
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await core.shutdown();
      server.closeAllConnections();
      await closed;
    },
  };
}
