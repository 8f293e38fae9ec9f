// The client's plain endpoints against a loopback node:http server: request
// shapes, answers in both list shapes, text answers, error statuses with the
// server's own words, headers, TLS, timeouts, refused connections, reuse.
import { GoPveQemuClient } from "../../provider/client";
import { CancelledError, ConnectionError, HttpStatusError, ResponseShapeError } from "../../provider/client/errors";
import { closedPort, startTestServer, type TestServer } from "./helpers/http-server";
import { makeCerts } from "./helpers/tls";

let server: TestServer;
let client: GoPveQemuClient;

const VM = {
  vmid: 101,
  name: "web-101",
  os: "ubuntu",
  running: true,
  node: "pve1",
  cpu: 2,
  disk: 40,
  memory: 4,
  memory_used: 1,
};
const NODE = { node: "pve1", max_cpu: 16, running: true };

beforeEach(async () => {
  server = await startTestServer();
  client = new GoPveQemuClient({
    endpoint: server.url,
    token: "s3cret",
    headers: { "X-Team": "infra" },
    requestTimeoutMs: 2000,
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const text = (status: number, body: string) => (_req: unknown, res: import("node:http").ServerResponse) => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
};
const json = (status: number, body: unknown) => (_req: unknown, res: import("node:http").ServerResponse) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
};

async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection");
}

describe("answers", () => {
  test("health: GET /api/health -> ok", async () => {
    server.route("GET /api/health", text(200, "ok"));
    await expect(client.health()).resolves.toBe("ok");
    expect(server.requests[0]).toMatchObject({ method: "GET", path: "/api/health" });
  });

  test("list: the shape the code sends ({count, list, cluster, data})", async () => {
    server.route("GET /api/vm/list", json(200, { count: 1, list: [VM], cluster: [NODE], data: [VM] }));
    await expect(client.list()).resolves.toEqual({ vms: [VM], nodes: [NODE] });
  });

  test("list: the shape the docs describe ({vms, nodes}), and an empty cluster", async () => {
    server.route("GET /api/vm/list", json(200, { vms: [VM], nodes: [NODE] }));
    await expect(client.list()).resolves.toEqual({ vms: [VM], nodes: [NODE] });
    server.route("GET /api/vm/list", json(200, { count: 0, list: null, cluster: null, data: null }));
    await expect(client.list()).resolves.toEqual({ vms: [], nodes: [] });
  });

  test("list: a body of another shape is a ResponseShapeError naming the field", async () => {
    server.route("GET /api/vm/list", json(200, { list: [{ ...VM, vmid: "101" }] }));
    const err = await caught(client.list());
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toMatch(/list\.0\.vmid/);
    server.route("GET /api/vm/list", text(200, "<html>proxy login</html>"));
    expect(await caught(client.list())).toBeInstanceOf(ResponseShapeError);
  });

  test("status: the word, from text (also `status: running` and JSON)", async () => {
    server.route("GET /api/vm/101/status", text(200, "running\n"));
    await expect(client.status(101)).resolves.toBe("running");
    server.route("GET /api/vm/101/status", text(200, "status: stopped"));
    await expect(client.status(101)).resolves.toBe("stopped");
    server.route("GET /api/vm/101/status", json(200, { status: "paused" }));
    await expect(client.status(101)).resolves.toBe("paused");
    server.route("GET /api/vm/101/status", text(200, "two words"));
    expect(await caught(client.status(101))).toBeInstanceOf(ResponseShapeError);
  });

  test.each([
    ["stop", (c: GoPveQemuClient) => c.stop(101), "POST /api/vm/101/stop", ""],
    ["shutdown", (c: GoPveQemuClient) => c.shutdown(101), "POST /api/vm/101/shutdown", ""],
    ["destroy", (c: GoPveQemuClient) => c.destroy(101), "POST /api/vm/101/destroy", ""],
    ["setCpu", (c: GoPveQemuClient) => c.setCpu(101, 4), "POST /api/vm/101/set/cpu", '{"cpu":4}'],
    ["setMemory", (c: GoPveQemuClient) => c.setMemory(101, 4096), "POST /api/vm/101/set/memory", '{"memory":4096}'],
    ["growDisk", (c: GoPveQemuClient) => c.growDisk(101, 10), "POST /api/vm/101/set/disk", '{"disk":"10G"}'],
  ])("%s sends %s and accepts `ok`", async (_name, call, key, body) => {
    server.route(key, text(200, "ok"));
    await expect(call(client)).resolves.toBeUndefined();
    const [method, path] = key.split(" ");
    expect(server.requests[0]).toMatchObject({ method, path, body });
    if (body) expect(server.requests[0]!.headers["content-type"]).toBe("application/json");
  });

  test("a 200 that is not `ok` is a ResponseShapeError", async () => {
    server.route("POST /api/vm/101/stop", text(200, "maybe"));
    const err = await caught(client.stop(101));
    expect(err).toBeInstanceOf(ResponseShapeError);
    expect(err.message).toContain("maybe");
  });

  test("bad arguments never reach the server", async () => {
    await expect(client.stop(0)).rejects.toThrow(RangeError);
    await expect(client.status(1.5)).rejects.toThrow(RangeError);
    await expect(client.growDisk(101, -1)).rejects.toThrow(RangeError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("error statuses carry the server's words", () => {
  test.each([
    ["400 JSON error field", 400, { error: "invalid VM ID" }, "invalid VM ID"],
    [
      "400 JSON message field",
      400,
      { success: false, message: "please check your input:Key: 'Config.OS' Error" },
      "please check your input:Key: 'Config.OS' Error",
    ],
    ["500 JSON nested error", 500, { error: { code: "x", message: "nested words" } }, "nested words"],
  ])("%s", async (_name, status, body, words) => {
    server.route("GET /api/vm/101/status", json(status, body));
    const err = await caught(client.status(101));
    expect(err).toBeInstanceOf(HttpStatusError);
    expect(err).toMatchObject({ status, serverMessage: words, vmid: 101, endpoint: "GET /api/vm/101/status" });
    expect(err.message).toBe(`GET /api/vm/101/status (VM 101) answered HTTP ${status}: ${words}`);
  });

  test("500 text", async () => {
    server.route("GET /api/vm/999/status", text(500, "failed to get VM status: exit status 2"));
    const err = await caught(client.status(999));
    expect(err).toMatchObject({ status: 500, serverMessage: "failed to get VM status: exit status 2" });
  });

  test("403 text from a refused IP", async () => {
    server.route("POST /api/vm/101/destroy", text(403, "this IP is not allowed to perform this action"));
    expect(await caught(client.destroy(101))).toMatchObject({
      status: 403,
      serverMessage: "this IP is not allowed to perform this action",
    });
  });

  test("a 400 text line followed by an SSE-style line: the text is the message", async () => {
    server.route(
      "POST /api/vm/101/set/cpu",
      text(
        400,
        'invalid request body: json: cannot unmarshal string into Go value of type intdata: {"message": "[-] invalid request body"}\n\n',
      ),
    );
    expect(await caught(client.setCpu(101, 2))).toMatchObject({
      status: 400,
      serverMessage: "invalid request body: json: cannot unmarshal string into Go value of type int",
    });
  });

  test("an empty error answer still says so", async () => {
    server.route("POST /api/vm/101/stop", text(502, ""));
    expect(await caught(client.stop(101))).toMatchObject({ status: 502, serverMessage: "(empty answer)" });
  });
});

describe("headers", () => {
  test("bearer token, extra headers and a user agent on every request", async () => {
    server.route("GET /api/health", text(200, "ok"));
    await client.health();
    expect(server.requests[0]!.headers).toMatchObject({ authorization: "Bearer s3cret", "x-team": "infra" });
    expect(server.requests[0]!.headers["user-agent"]).toMatch(/^go-pve-qemu-pulumi\//);
  });

  test("no token, no Authorization header; the token wins over an extra Authorization header", async () => {
    server.route("GET /api/health", text(200, "ok"));
    const plain = new GoPveQemuClient({ endpoint: server.url });
    await plain.health();
    await plain.close();
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    const both = new GoPveQemuClient({ endpoint: server.url, token: "t", headers: { Authorization: "Basic xyz" } });
    await both.health();
    await both.close();
    expect(server.requests[1]!.headers.authorization).toBe("Bearer t");
  });

  test("an endpoint with a path prefix keeps it", async () => {
    server.route("GET /pve/api/health", text(200, "ok"));
    const prefixed = new GoPveQemuClient({ endpoint: `${server.url}/pve/` });
    await expect(prefixed.health()).resolves.toBe("ok");
    await prefixed.close();
  });

  test("a malformed endpoint or header is refused up front", () => {
    expect(() => new GoPveQemuClient({ endpoint: "not a url" })).toThrow(TypeError);
    expect(() => new GoPveQemuClient({ endpoint: "ftp://x" })).toThrow(/http/);
    expect(() => new GoPveQemuClient({ endpoint: server.url, headers: { "X-Bad": "a\r\nb" } })).toThrow(/line break/);
    // credentials in the URL would not be sent: refused, and not repeated in the message
    const withUser = () => new GoPveQemuClient({ endpoint: "http://admin:pw-in-url@127.0.0.1:9/" });
    expect(withUser).toThrow(/^endpoint http:\/\/\*\*\*@127\.0\.0\.1:9 must not carry a user name or password/);
    expect(withUser).not.toThrow(/pw-in-url|admin/);
  });
});

describe("connections", () => {
  test("a refused connection is a ConnectionError naming the endpoint", async () => {
    const port = await closedPort();
    const c = new GoPveQemuClient({ endpoint: `http://127.0.0.1:${port}` });
    const err = await caught(c.status(101));
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(
      /GET \/api\/vm\/101\/status \(VM 101\) to http:\/\/127\.0\.0\.1:\d+ failed: connection refused/,
    );
  });

  test("no answer within the request timeout is a ConnectionError", async () => {
    server.route("GET /api/health", () => undefined); // never answers
    const c = new GoPveQemuClient({ endpoint: server.url, requestTimeoutMs: 200 });
    const err = await caught(c.health());
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/no answer within 200 ms/);
  });

  test("a per-call timeout replaces the connection's (a shutdown waits for the guest)", async () => {
    server.route("POST /api/vm/101/shutdown", () => undefined); // the guest takes its time
    const c = new GoPveQemuClient({ endpoint: server.url, requestTimeoutMs: 600_000 });
    const err = await caught(c.shutdown(101, { timeoutMs: 50 }));
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/POST \/api\/vm\/101\/shutdown \(VM 101\) to .* got no answer within 50 ms/);
  });

  test("a body that stalls midway also hits the request timeout", async () => {
    server.route("GET /api/vm/list", (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"count":1,');
    });
    const c = new GoPveQemuClient({ endpoint: server.url, requestTimeoutMs: 200 });
    const err = await caught(c.list());
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
  });

  test("the caller's AbortSignal cancels a plain request (CancelledError, not a ConnectionError)", async () => {
    server.route("GET /api/health", () => undefined);
    const ac = new AbortController();
    const p = client.health({ signal: ac.signal });
    const req = await server.nextRequest();
    ac.abort();
    const err = await caught(p);
    expect(err).toBeInstanceOf(CancelledError);
    expect(err).not.toBeInstanceOf(ConnectionError);
    await req.socketClosed;
  });

  test("connections are reused between calls", async () => {
    server.route("GET /api/health", text(200, "ok"));
    server.route("GET /api/vm/101/status", text(200, "running"));
    for (let i = 0; i < 4; i++) {
      await client.health();
      await client.status(101);
    }
    // undici may open a second connection while the first is finishing its answer;
    // eight sequential calls must not open eight
    const ports = server.requests.map((r) => r.remotePort);
    expect(ports).toHaveLength(8);
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
  });

  test("concurrent calls use several pooled connections", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.route("GET /api/vm/101/status", async (_req, res) => {
      await gate;
      res.end("running");
    });
    const calls = [client.status(101), client.status(101), client.status(101)];
    while (server.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    release();
    await expect(Promise.all(calls)).resolves.toEqual(["running", "running", "running"]);
    expect(new Set(server.requests.map((r) => r.remotePort)).size).toBe(3);
  });
});

describe("https", () => {
  const certs = makeCerts();
  let tlsServer: TestServer;

  beforeAll(async () => {
    tlsServer = await startTestServer({ key: certs.key, cert: certs.cert });
    tlsServer.route("GET /api/health", text(200, "ok"));
  });
  afterAll(() => tlsServer.close());

  test("trusts the given CA", async () => {
    const c = new GoPveQemuClient({ endpoint: tlsServer.url, caCert: certs.caCert });
    await expect(c.health()).resolves.toBe("ok");
    await c.close();
  });

  test("an unknown CA is a ConnectionError", async () => {
    const c = new GoPveQemuClient({ endpoint: tlsServer.url });
    const err = await caught(c.health());
    await c.close();
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/certificate|self.signed|UNABLE_TO/i);
  });

  test("insecureSkipVerify accepts it (lab setups)", async () => {
    const c = new GoPveQemuClient({ endpoint: tlsServer.url, insecureSkipVerify: true });
    await expect(c.health()).resolves.toBe("ok");
    await c.close();
  });
});
