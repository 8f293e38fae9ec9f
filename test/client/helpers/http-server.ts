// A small loopback HTTP(S) server for the client's HTTP-level tests: routes by
// "METHOD /path", records every request (headers, body, socket), and lets a
// test watch a socket close from the server's side.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";

interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  socket: Socket;
  /** the client's port: the same value for requests over the same connection */
  remotePort: number | undefined;
  /** resolves when the server sees this request's socket close */
  socketClosed: Promise<number>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface TestServer {
  url: string;
  port: number;
  requests: Recorded[];
  route(key: string, handler: Handler): void;
  /** resolves with the next request that arrives */
  nextRequest(): Promise<Recorded>;
  close(): Promise<void>;
}

export async function startTestServer(tls?: { key: string; cert: string }): Promise<TestServer> {
  const routes = new Map<string, Handler>();
  const requests: Recorded[] = [];
  const waiting: ((r: Recorded) => void)[] = [];
  const sockets = new Set<Socket>();
  const closedAt = new WeakMap<Socket, Promise<number>>();

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = req.url ?? "/";
      const rec: Recorded = {
        method: req.method ?? "",
        path,
        headers: req.headers,
        body,
        socket: req.socket,
        remotePort: req.socket.remotePort,
        socketClosed: closedAt.get(req.socket)!,
      };
      requests.push(rec);
      waiting.shift()?.(rec);
      const handler = routes.get(`${req.method} ${path}`);
      if (!handler) {
        res.writeHead(404, { "content-type": "text/plain" }).end(`404 page not found: ${req.method} ${path}`);
        return;
      }
      Promise.resolve(handler(req, res, body)).catch((err: unknown) => {
        res.destroy(err as Error);
      });
    });
  };

  const server: Server = tls
    ? createHttpsServer({ key: tls.key, cert: tls.cert }, onRequest)
    : createHttpServer(onRequest);
  // keep-alive like gin: connections stay open between requests
  server.keepAliveTimeout = 5000;
  const trackSocket = (socket: Socket) => {
    sockets.add(socket);
    closedAt.set(socket, new Promise<number>((resolve) => socket.once("close", () => resolve(performance.now()))));
    socket.once("close", () => sockets.delete(socket));
  };
  server.on(tls ? "secureConnection" : "connection", trackSocket);

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    requests,
    route: (key, handler) => routes.set(key, handler),
    nextRequest: () => new Promise<Recorded>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Writes the SSE response head the way go-pve-qemu does (headers flushed at once). */
export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
}

/** A free port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const s = createHttpServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
