// The streamed operations over real HTTP: a loopback server plays the recorded
// streams in small pieces; the client must decide the same outcomes, close the
// socket at once on abort and timeouts, and map non-SSE answers to errors.
import type { ServerResponse } from "node:http";
import { GoPveQemuClient } from "../../provider/client";
import { ConnectionError, HttpStatusError, ResponseShapeError } from "../../provider/client/errors";
import type { InstallFacts, OperationEvent } from "../../provider/client/stream/types";
import { EXPECTATIONS } from "./fixture-expectations";
import { FakeClock } from "./helpers/clock";
import { bytes, fixtureText, sleep } from "./helpers/fixtures";
import { closedPort, sseHead, startTestServer, type TestServer } from "./helpers/http-server";
import { START_OK, ev } from "./helpers/sse";
import { failure } from "./helpers/failure";

let server: TestServer;
let client: GoPveQemuClient;

beforeEach(async () => {
  server = await startTestServer();
  client = new GoPveQemuClient({ endpoint: server.url, token: "tok" });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** Plays bytes in pieces of 1..200 bytes with short pauses, then ends (or hangs). */
async function play(
  res: ServerResponse,
  data: Uint8Array,
  opts: { end?: boolean; pauseEvery?: number } = {},
): Promise<void> {
  sseHead(res);
  let seed = data.length;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let i = 0;
  let n = 0;
  while (i < data.length) {
    const size = 1 + Math.floor(rnd() * 200);
    res.write(data.subarray(i, i + size));
    i += size;
    if (++n % (opts.pauseEvery ?? 8) === 0) await sleep(1);
  }
  if (opts.end !== false) res.end();
}

test("install: request, headers, and the outcome with its facts", async () => {
  server.route("POST /api/vm/install", (_req, res) =>
    play(res, bytes(fixtureText("install-success-specified-clamped.sse"))),
  );
  const facts: InstallFacts[] = [];
  const events: OperationEvent[] = [];
  const result = await client.install(
    { os: "ubuntu", version: "24.04", id: 120, cpu: 64, ram: 65536, disk: "500G", node: "pve2" },
    { onFacts: (f) => facts.push(f), onEvent: (e) => events.push(e) },
  );
  expect(result.facts).toEqual({
    vmid: 120,
    autoAssigned: false,
    realName: "120",
    ip: "192.168.0.120",
    user: "ubuntu",
    cpu: 8,
    memoryMb: 16384,
    diskGb: 200,
    vmCreated: true,
    completed: true,
  });
  expect(facts[0]!.vmid).toBe(120);
  expect(events.at(-1)).toEqual({ kind: "close" });
  const req = server.requests[0]!;
  expect(JSON.parse(req.body)).toEqual({
    os: "ubuntu",
    version: "24.04",
    id: 120,
    cpu: 64,
    ram: 65536,
    disk: "500G",
    node: "pve2",
  });
  expect(req.headers).toMatchObject({
    accept: "text/event-stream",
    authorization: "Bearer tok",
    "content-type": "application/json",
  });
});

test.each(Object.entries(EXPECTATIONS).filter(([name]) => !name.startsWith("seed")))(
  "%s over HTTP",
  async (name, exp) => {
    const key =
      exp.kind === "install"
        ? "POST /api/vm/install"
        : exp.kind === "migrate"
          ? "POST /api/vm/101/set/node"
          : `POST /api/vm/101/${exp.kind}`;
    server.route(key, (_req, res) => play(res, bytes(fixtureText(name))));
    const call =
      exp.kind === "install"
        ? client.install({ os: "debian", version: "12", name: exp.requestName })
        : exp.kind === "migrate"
          ? client.migrate(101, "pve2")
          : client[exp.kind](101);
    if (exp.ok) {
      await expect(call).resolves.toMatchObject({ kind: exp.kind });
      return;
    }
    const err = await failure(call);
    expect(err.shape).toBe(exp.shape);
    if (typeof exp.serverMessage === "string") expect(err.serverMessage).toBe(exp.serverMessage);
    if (exp.facts) expect(err.facts).toMatchObject(exp.facts);
    if (exp.kind !== "install") expect(err.vmid).toBe(101);
    else if (exp.facts?.vmid !== undefined) expect(err.vmid).toBe(exp.facts.vmid);
  },
);

test("migrate sends the node", async () => {
  server.route("POST /api/vm/101/set/node", (_req, res) => play(res, bytes(fixtureText("migrate-success.sse"))));
  await client.migrate(101, "pve2");
  expect(JSON.parse(server.requests[0]!.body)).toEqual({ node: "pve2" });
});

/** Resolves with the first event `pick` accepts; use as onEvent. */
function firstEvent(pick: (e: OperationEvent) => boolean = () => true): {
  onEvent: (e: OperationEvent) => void;
  seen: Promise<OperationEvent>;
} {
  let resolve: (e: OperationEvent) => void = () => undefined;
  const seen = new Promise<OperationEvent>((r) => (resolve = r));
  return { onEvent: (e) => (pick(e) ? resolve(e) : undefined), seen };
}

test("abort mid-stream: the client closes the socket (the server never ends it)", async () => {
  server.route("POST /api/vm/101/start", (_req, res) => {
    sseHead(res);
    res.write(START_OK[0]!); // then silence: the VM is booting
  });
  const ac = new AbortController();
  const first = firstEvent();
  const p = client.start(101, { signal: ac.signal, onEvent: first.onEvent });
  const req = await server.nextRequest();
  await first.seen;
  ac.abort();
  const err = await failure(p);
  await req.socketClosed;
  expect(err.shape).toBe("aborted");
  expect(err.step).toBe("starting VM");
});

test("abort before the answer's headers: aborted, socket closed", async () => {
  server.route("POST /api/vm/101/reboot", () => undefined);
  const ac = new AbortController();
  const p = client.reboot(101, { signal: ac.signal });
  const req = await server.nextRequest();
  ac.abort();
  const err = await failure(p);
  expect(err.shape).toBe("aborted");
  await req.socketClosed;
});

test("an already aborted signal sends nothing", async () => {
  const err = await failure(client.start(101, { signal: AbortSignal.abort() }));
  expect(err.shape).toBe("aborted");
  expect(server.requests).toHaveLength(0);
});

test("idle timeout (per call) closes the socket; the error names the last step", async () => {
  server.route("POST /api/vm/101/start", (_req, res) => {
    sseHead(res);
    res.write(START_OK[0]! + START_OK[1]!);
  });
  const clock = new FakeClock();
  const second = firstEvent((e) => e.kind === "step" && e.status === "success");
  const p = client.start(101, { idleTimeoutMs: 200, clock, onEvent: second.onEvent });
  const req = await server.nextRequest();
  await second.seen;
  clock.advance(200);
  const err = await failure(p);
  expect(err.shape).toBe("idle-timeout");
  expect(err.step).toBe("starting VM");
  expect(err.message).toMatch(/start of VM 101 failed at step "starting VM" \(the stream went silent/);
  await req.socketClosed;
});

test("idle timeout also covers a server that never answers the request", async () => {
  server.route("POST /api/vm/101/start", () => undefined);
  const clock = new FakeClock();
  const p = client.start(101, { idleTimeoutMs: 150, clock });
  const req = await server.nextRequest();
  clock.advance(150);
  expect((await failure(p)).shape).toBe("idle-timeout");
  await req.socketClosed;
});

test("a server that never sends the answer's headers: the headers limit fires, far before the idle limit", async () => {
  server.route("POST /api/vm/install", () => undefined);
  const clock = new FakeClock();
  const p = client.install(
    { os: "ubuntu", version: "24.04" },
    { headersTimeoutMs: 120, idleTimeoutMs: 900_000, clock },
  );
  const req = await server.nextRequest();
  clock.advance(120);
  const err = await failure(p);
  expect(err.shape).toBe("headers-timeout");
  expect(err.code).toBe("GPQ_NO_ANSWER");
  expect(err.message).toMatch(/no answer came \(not even the stream's headers\)/);
  await req.socketClosed;
});

test("once the headers are in, the headers limit no longer applies: a long silence is the idle limit's", async () => {
  server.route("POST /api/vm/101/start", (_req, res) => {
    sseHead(res);
    res.write(START_OK[0]!);
  });
  const clock = new FakeClock();
  const first = firstEvent();
  const p = client.start(101, { headersTimeoutMs: 100, idleTimeoutMs: 300, clock, onEvent: first.onEvent });
  await first.seen;
  clock.advance(250); // past the headers limit, within the idle limit
  await sleep(20);
  let settled = false;
  void p.catch(() => undefined).finally(() => (settled = true));
  await sleep(20);
  expect(settled).toBe(false);
  clock.advance(60);
  expect((await failure(p)).shape).toBe("idle-timeout");
});

test("the connection's default idle timeout applies, and heartbeats hold it off", async () => {
  // (keepalive comments and retry fields hold it off too: test/client/reader.test.ts)
  const c = new GoPveQemuClient({ endpoint: server.url, streamIdleTimeoutMs: 150 });
  const clock = new FakeClock();
  let sendNext: () => void = () => undefined;
  server.route("POST /api/vm/101/start", async (_req, res) => {
    sseHead(res);
    res.write(START_OK[0]! + START_OK[1]!);
    for (let i = 0; i < 8; i++) {
      await new Promise<void>((r) => (sendNext = r));
      res.write(`event: heartbeat\ndata: {"n": ${i}}\n\n`);
    }
    await new Promise<void>((r) => (sendNext = r));
    res.end(START_OK.slice(2).join(""));
  });
  // Each time something arrives, 100 ms pass before the next: 900 ms in all, never 150 of silence.
  const onEvent = (e: OperationEvent): void => {
    if (e.kind === "other" || (e.kind === "step" && e.status === "success" && e.step === "starting VM")) {
      clock.advance(100);
      sendNext();
    }
  };
  await expect(c.start(101, { clock, onEvent })).resolves.toMatchObject({ kind: "start" });
  expect(clock.now()).toBe(900);

  server.route("POST /api/vm/101/reboot", (_req, res) => {
    sseHead(res);
    res.write(START_OK[0]!);
  });
  const first = firstEvent();
  const p = c.reboot(101, { clock, onEvent: first.onEvent });
  await first.seen;
  clock.advance(150);
  expect((await failure(p)).shape).toBe("idle-timeout");
  await c.close();
});

test("overall timeout", async () => {
  const clock = new FakeClock();
  let sendNext: () => void = () => undefined;
  server.route("POST /api/vm/101/start", async (_req, res) => {
    sseHead(res);
    for (let i = 0; i < 100 && !res.destroyed; i++) {
      res.write(ev("starting VM", "processing", `  tick ${i}`));
      await new Promise<void>((r) => (sendNext = r));
    }
  });
  // 20 ms between ticks, on the clock; the 13th step crosses 250 ms.
  const onEvent = (): void => {
    clock.advance(20);
    sendNext();
  };
  const p = client.start(101, { overallTimeoutMs: 250, clock, onEvent });
  const req = await server.nextRequest();
  const err = await failure(p);
  expect(err.shape).toBe("overall-timeout");
  expect(err.tail.at(-1)).toBe("  tick 12");
  await req.socketClosed;
});

test("the server drops the connection mid-stream: connection-lost", async () => {
  server.route("POST /api/vm/101/start", async (req, res) => {
    sseHead(res);
    res.write(START_OK[0]!);
    await sleep(20);
    req.socket.destroy();
  });
  const err = await failure(client.start(101));
  expect(err.shape).toBe("connection-lost");
});

test("a non-2xx answer to a streamed call is an HttpStatusError with the server's words", async () => {
  server.route("POST /api/vm/install", (_req, res) => {
    res.writeHead(400, { "content-type": "application/json" }).end(
      JSON.stringify({
        success: false,
        message: "please check your input:Key: 'Config.OS' Error:Field validation for 'OS' failed on the 'oneof' tag",
      }),
    );
  });
  const err = await client.install({ os: "debian", version: "12" }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(HttpStatusError);
  expect(err).toMatchObject({
    status: 400,
    serverMessage: "please check your input:Key: 'Config.OS' Error:Field validation for 'OS' failed on the 'oneof' tag",
    body: "refusal",
  });

  // Who wrote the body: a gateway's JSON, a proxy's page, nothing at all.
  const answers: [number, string, string, string][] = [
    [504, "application/json", '{"message":"Endpoint request timed out"}', "json"],
    [502, "text/html", "<html><body>502 Bad Gateway</body></html>", "text"],
    [503, "text/plain", "", "text"],
    [500, "application/json", '{"success":false,"message":"no"}', "refusal"],
    [500, "application/json", '["not", "an object"]', "text"],
  ];
  for (const [status, type, body, kind] of answers) {
    server.route("POST /api/vm/install", (_req, res) => void res.writeHead(status, { "content-type": type }).end(body));
    await expect(client.install({ os: "debian", version: "12" })).rejects.toMatchObject({ status, body: kind });
  }

  server.route("POST /api/vm/101/set/node", (_req, res) => {
    res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
    res.end(
      "invalid request body: Key: 'reqBody.Node' Error:Field validation for 'Node' failed on the 'required' tagdata: {\"message\": \"[-] invalid request body\"}\n\n",
    );
  });
  const err2 = await client.migrate(101, "").catch((e: unknown) => e);
  expect(err2).toMatchObject({
    status: 400,
    serverMessage:
      "invalid request body: Key: 'reqBody.Node' Error:Field validation for 'Node' failed on the 'required' tag",
    vmid: 101,
  });

  server.route(
    "POST /api/vm/101/start",
    (_req, res) => void res.writeHead(403).end("this IP is not allowed to perform this action"),
  );
  await expect(client.start(101)).rejects.toMatchObject({
    status: 403,
    serverMessage: "this IP is not allowed to perform this action",
  });
});

test("a 200 JSON answer where a stream was expected is a ResponseShapeError", async () => {
  server.route("POST /api/vm/101/start", (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end('{"success":false,"message":"not here"}');
  });
  const err = await client.start(101).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ResponseShapeError);
  expect((err as Error).message).toContain("not here");
  // the server's own refusal body, passed on with 200: said so, for the verdict
  expect(err).toMatchObject({ body: "refusal" });
  server.route("POST /api/vm/101/reboot", (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end('{"status":"queued"}');
  });
  await expect(client.reboot(101)).rejects.toMatchObject({ body: "json" });
});

test("a refused connection is a ConnectionError, not an operation failure", async () => {
  const c = new GoPveQemuClient({ endpoint: `http://127.0.0.1:${await closedPort()}` });
  const err = await c.start(101).catch((e: unknown) => e);
  await c.close();
  expect(err).toBeInstanceOf(ConnectionError);
});

test("after a stream ends the connection goes back to the pool", async () => {
  server.route("POST /api/vm/101/start", (_req, res) => play(res, bytes(START_OK.join(""))));
  server.route("GET /api/health", (_req, res) => void res.end("ok"));
  await client.start(101);
  for (let i = 0; i < 3; i++) await client.health();
  expect(new Set(server.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
});

test("a long stream with 1 MB lines and endless output keeps a bounded tail", async () => {
  const big = "y".repeat(1024 * 1024);
  server.route("POST /api/vm/101/set/node", async (_req, res) => {
    sseHead(res);
    for (let i = 0; i < 30; i++) {
      res.write(ev("migrating", "processing", `  ${i} ${big}`));
      res.write(`data: {"step":"migrating","status":"processing","message":"  "quoted" ${i}"}\n\n`);
      if (i % 5 === 0) await sleep(1);
    }
    res.end("event: close\ndata: {}\n\n");
  });
  let events = 0;
  const result = await client.migrate(101, "pve2", { onEvent: () => events++ });
  expect(events).toBe(61);
  expect(result.tail).toHaveLength(20);
  expect(result.tail.every((l) => l.length < 4200)).toBe(true);
  expect(result.tail.at(-1)).toBe('  "quoted" 29');
});
