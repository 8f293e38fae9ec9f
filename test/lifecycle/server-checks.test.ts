// The checks that need other resources or the server: node names from the
// server's list, an unreachable server, duplicate pinned VMIDs, against the
// simulator and against sockets that refuse or never answer.
import * as net from "node:net";
import { GoPveQemuClient } from "../../provider/client";
import { ServerChecks, UNKNOWN } from "../../provider/lifecycle";
import type { ResolvedConnection, VmInputs } from "../../provider/lifecycle";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { freePort } from "../../scripts/ports";

const URN = (name: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/goPveQemu:Vm::${name}`;
const vm = (patch: Partial<Record<keyof VmInputs, unknown>> = {}) =>
  ({ os: "ubuntu", version: "24.04", ...patch }) as VmInputs;

function recorder() {
  const warnings: string[] = [];
  return { warnings, reporter: { info: () => {}, debug: () => {}, warn: (m: string) => warnings.push(m) } };
}

const clients: GoPveQemuClient[] = [];
function checksFor(endpoint: string, extra: { offline?: boolean; timeoutMs?: number; token?: string } = {}) {
  return new ServerChecks({
    client: (conn: ResolvedConnection) => {
      const c = new GoPveQemuClient({ ...conn, connectTimeoutMs: 2000 });
      clients.push(c);
      return c;
    },
    connectionDefaults: { endpoint, token: extra.token },
    defaultTokenSource: extra.token === undefined ? undefined : "stack config goPveQemu:token",
    offline: extra.offline ?? false,
    timeoutMs: extra.timeoutMs ?? 5000,
  });
}

describe("server checks", () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ speed: 2000, nodes: ["pve1", "pve2", "pve3"] });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await sim.close();
  });

  test("a node the cluster has passes; one it does not have fails, naming the cluster's nodes", async () => {
    const checks = checksFor(sim.url);
    const { reporter, warnings } = recorder();
    expect(await checks.check(URN("a"), vm({ node: "pve3" }), reporter)).toEqual([]);
    expect(await checks.check(URN("b"), vm({ node: "pve9" }), reporter)).toEqual([
      {
        property: "node",
        reason: `node: "pve9" is not a node of the cluster at ${sim.url}; its nodes are pve1, pve2, pve3`,
      },
    ]);
    expect(warnings).toEqual([]);
  });

  test("the list is asked once per endpoint per process", async () => {
    const checks = checksFor(sim.url);
    const { reporter } = recorder();
    const before = sim.stats().requests.list ?? 0;
    await Promise.all(["a", "b", "c"].map((n) => checks.check(URN(n), vm({ node: "pve1" }), reporter)));
    await checks.check(URN("d"), vm(), reporter);
    expect((sim.stats().requests.list ?? 0) - before).toBe(1);
  });

  test("an unknown node or connection at preview is not checked", async () => {
    const checks = checksFor(sim.url);
    const { reporter } = recorder();
    expect(await checks.check(URN("a"), vm({ node: UNKNOWN }), reporter)).toEqual([]);
    const before = sim.stats().requests.list ?? 0;
    expect(await checks.check(URN("b"), vm({ node: "nope", connection: { endpoint: UNKNOWN } }), reporter)).toEqual([]);
    expect(sim.stats().requests.list ?? 0).toBe(before);
  });

  test("an unreachable server is one warning naming the endpoint, and no failure", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const checks = checksFor(endpoint);
    const { reporter, warnings } = recorder();
    expect(await checks.check(URN("a"), vm({ node: "pve9" }), reporter)).toEqual([]);
    expect(await checks.check(URN("b"), vm(), reporter)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the go-pve-qemu server at ${endpoint} cannot be reached (`);
    expect(warnings[0]).toContain("connection refused");
    expect(warnings[0]).toContain("goPveQemu:offline true");
  });

  test("a server that never answers costs at most the timeout, then the same warning", async () => {
    const silent = net.createServer((socket) => socket.on("error", () => {}));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const endpoint = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const { reporter, warnings } = recorder();
      expect(await checksFor(endpoint, { timeoutMs: 200 }).check(URN("a"), vm(), reporter)).toEqual([]);
      expect(warnings[0]).toContain(`${endpoint} cannot be reached (no answer within 200 ms)`);
    } finally {
      silent.close();
    }
  });

  test("a server that answers but not with its list is a warning with its words", async () => {
    const other = await startSimulator({ speed: 2000 });
    try {
      other.addFault({ op: "list", step: "vm map", kind: "fail", times: 1 });
      const { reporter, warnings } = recorder();
      expect(await checksFor(other.url).check(URN("a"), vm({ node: "pve9" }), reporter)).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        new RegExp(`^the go-pve-qemu server at ${other.url} did not list its nodes \\(.*500.*failed to get VM Map`),
      );
    } finally {
      await other.close();
    }
  });

  test("credentials the server or its proxy refuses (401/403) fail the check, naming the token's setting", async () => {
    const other = await startSimulator({ speed: 2000 });
    try {
      other.addFault({ op: "list", kind: "http", status: 401, body: "Unauthorized", times: 1 });
      const { reporter, warnings } = recorder();
      const failures = await checksFor(other.url, { token: "tok-wrong-123" }).check(URN("a"), vm(), reporter);
      expect(failures).toEqual([
        {
          property: "connection.token",
          reason: `connection.token: the go-pve-qemu server at ${other.url}, or a proxy in front of it, refused the request (HTTP 401: Unauthorized): the token from stack config goPveQemu:token was refused; set a valid one`,
        },
      ]);
      expect(warnings).toEqual([]);
      expect(JSON.stringify(failures)).not.toContain("tok-wrong-123");

      other.addFault({ op: "list", kind: "http", status: 403, body: "Forbidden", times: 1 });
      const own = await checksFor(other.url).check(
        URN("b"),
        vm({ connection: { endpoint: other.url, token: "tok-own-4567" } }),
        reporter,
      );
      expect(own[0]!.reason).toMatch(
        /refused the request \(HTTP 403: Forbidden\): the token from the resource's connection.token was refused/,
      );

      other.addFault({ op: "list", kind: "http", status: 401, body: "Unauthorized", times: 1 });
      const none = await checksFor(other.url).check(URN("c"), vm(), reporter);
      expect(none[0]!.reason).toMatch(/: no token is set \(give one with `pulumi config set --secret goPveQemu:token/);
    } finally {
      await other.close();
    }
  });

  test("offline asks nothing and warns about nothing", async () => {
    const checks = checksFor(sim.url, { offline: true });
    const { reporter, warnings } = recorder();
    const before = sim.stats().requests.list ?? 0;
    expect(await checks.check(URN("a"), vm({ node: "pve9" }), reporter)).toEqual([]);
    expect(sim.stats().requests.list ?? 0).toBe(before);
    expect(warnings).toEqual([]);
  });

  describe("pinned VMIDs", () => {
    const { reporter } = recorder();

    test("two resources pinning one VMID on one server: the second fails, naming both", async () => {
      const checks = checksFor(sim.url, { offline: true });
      expect(await checks.check(URN("web"), vm({ vmid: 120 }), reporter)).toEqual([]);
      expect(await checks.check(URN("db"), vm({ vmid: 120 }), reporter)).toEqual([
        {
          property: "vmid",
          reason: `vmid: 120 is pinned by both "web" and "db" on ${sim.url}; one VMID is one VM: give each resource its own vmid, or omit vmid to let the server pick one`,
        },
      ]);
    });

    test("a re-check of the same resource (a replace, up after preview) is not a duplicate", async () => {
      const checks = checksFor(sim.url, { offline: true });
      expect(await checks.check(URN("web"), vm({ vmid: 120 }), reporter)).toEqual([]);
      expect(await checks.check(URN("web"), vm({ vmid: 120, cpu: 4 }), reporter)).toEqual([]);
    });

    test("a resource that moves to another VMID frees its old one (two resources swap VMIDs)", async () => {
      const checks = checksFor(sim.url, { offline: true });
      expect(await checks.check(URN("a"), vm({ vmid: 121 }), reporter)).toEqual([]);
      expect(await checks.check(URN("a"), vm({ vmid: 122 }), reporter)).toEqual([]);
      expect(await checks.check(URN("b"), vm({ vmid: 121 }), reporter)).toEqual([]);
      expect(await checks.check(URN("b"), vm({ vmid: 122 }), reporter)).toHaveLength(1);
    });

    test("the same VMID on two servers, or unpinned and unknown VMIDs, are no conflict", async () => {
      const checks = checksFor(sim.url, { offline: true });
      expect(await checks.check(URN("a"), vm({ vmid: 130 }), reporter)).toEqual([]);
      const other = vm({ vmid: 130, connection: { endpoint: "http://10.0.0.9:8080" } });
      expect(await checks.check(URN("b"), other, reporter)).toEqual([]);
      // the same server spelled with a trailing slash is the same server
      const same = vm({ vmid: 130, connection: { endpoint: `${sim.url}/` } });
      expect(await checks.check(URN("c"), same, reporter)).toHaveLength(1);
      expect(await checks.check(URN("d"), vm(), reporter)).toEqual([]);
      expect(await checks.check(URN("e"), vm({ vmid: UNKNOWN }), reporter)).toEqual([]);
      expect(await checks.check(URN("f"), vm(), reporter)).toEqual([]);
    });
  });
});
