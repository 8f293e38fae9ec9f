// The contract of the one patch of the SDK's internals (provider/engine/
// grpc-add-service-patch.ts): the plugin's gRPC server, started in this
// process as the engine starts it, answers Configure, CheckConfig and Invoke
// with this provider's own handlers over a real grpc-js client. An SDK
// upgrade that stops handing its provider object to grpc-js's addService,
// or renames those methods, fails here in seconds.
import type * as grpcType from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { configure, type ProviderCore } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { fromSdk } from "../../provider/engine";
import { startPlugin } from "../../provider/plugin/serve";
import { startSimulator, type SimulatorHandle } from "../../simulator";

interface StructType {
  toJavaScript(): unknown;
}
const { Struct } = fromSdk<{ Struct: { fromJavaScript(value: object): StructType } }>(
  "google-protobuf/google/protobuf/struct_pb",
);
const grpc = fromSdk<typeof grpcType>("@grpc/grpc-js");

let core: ProviderCore;
let client: provrpc.ResourceProviderClient;
const servers: grpcType.Server[] = [];

beforeAll(async () => {
  core = configure({ env: {}, engineUnknown: ENGINE_UNKNOWN });
  // The server the SDK makes, to stop it after the tests; the port it prints, to reach it.
  const bind = grpc.Server.prototype.bindAsync;
  jest.spyOn(grpc.Server.prototype, "bindAsync").mockImplementation(function (this: grpcType.Server, ...args) {
    servers.push(this);
    return bind.apply(this, args);
  });
  const printed = jest.spyOn(console, "log").mockImplementation(() => undefined);
  await startPlugin(core, []);
  const port = String(printed.mock.calls.at(-1)?.[0]);
  printed.mockRestore();
  expect(port).toMatch(/^\d+$/);
  client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.tryShutdown(() => resolve()))));
});

const call = <Req, Res>(method: (req: Req, cb: (err: Error | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => method.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));

test("CheckConfig is this provider's: each bad setting by key, and the stack's identity made as a secret", async () => {
  const req = new provproto.CheckRequest();
  req.setOlds(Struct.fromJavaScript({}) as never);
  req.setNews(Struct.fromJavaScript({ endpoint: "http://127.0.0.1:1", pollIntervalMs: "soon" }) as never);
  const res = await call<provproto.CheckRequest, provproto.CheckResponse>(client.checkConfig, req);
  expect(res.getFailuresList().map((f) => f.getProperty())).toEqual(["pollIntervalMs"]);
  const inputs = (res.getInputs() as unknown as StructType).toJavaScript() as Record<string, unknown>;
  expect(inputs.endpoint).toBe("http://127.0.0.1:1");
  expect(JSON.stringify(inputs.stackIdentity)).toMatch(/[0-9a-f]{32}/);
});

test("Configure reaches the provider core: its settings and identity are the request's", async () => {
  const req = new provproto.ConfigureRequest();
  const identity = "c".repeat(32);
  req.setArgs(Struct.fromJavaScript({ endpoint: "http://127.0.0.1:9", stackIdentity: identity }) as never);
  await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(client.configure, req);
  expect(core.settings().connection.endpoint).toBe("http://127.0.0.1:9");
  expect(core.providerIdentity).toBe(identity);
});

describe("Invoke is this provider's: the request's preview reaches the core", () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ nodes: ["pve1", "pve2"] });
  });
  afterAll(() => sim.close());

  const configureWith = async (args: Record<string, unknown>) => {
    const req = new provproto.ConfigureRequest();
    req.setArgs(Struct.fromJavaScript(args) as never);
    await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(client.configure, req);
  };
  const invoke = async (token: string, preview: boolean) => {
    const req = new provproto.InvokeRequest();
    req.setTok(token);
    req.setArgs(Struct.fromJavaScript({}) as never);
    req.setPreview(preview);
    const res = await call<provproto.InvokeRequest, provproto.InvokeResponse>(client.invoke, req);
    return (res.getReturn() as unknown as StructType).toJavaScript() as Record<string, unknown>;
  };

  test("offline, a preview's getNodes and getVms ask nothing and answer empty lists; the deployment's read the server", async () => {
    await configureWith({ endpoint: sim.url, offline: true });
    const before = { ...sim.stats().requests };
    expect(await invoke("gopveqemu:index:getNodes", true)).toEqual({ nodes: [] });
    expect(await invoke("gopveqemu:index:getVms", true)).toEqual({ vms: [] });
    expect(sim.stats().requests).toEqual(before);
    const { nodes } = (await invoke("gopveqemu:index:getNodes", false)) as { nodes: { name: string }[] };
    expect(nodes.map((n) => n.name)).toEqual(["pve1", "pve2"]);
  });

  test("without offline, a preview reads the server too", async () => {
    await configureWith({ endpoint: sim.url });
    const { vms } = (await invoke("gopveqemu:index:getVms", true)) as { vms: unknown[] };
    expect(vms).toEqual([]);
  });

  test("an unknown function is refused, naming the ones there are", async () => {
    await expect(invoke("gopveqemu:index:getDisks", false)).rejects.toThrow(
      /unknown function gopveqemu:index:getDisks; this provider has gopveqemu:index:getNodes, gopveqemu:index:getVms/,
    );
  });
});
