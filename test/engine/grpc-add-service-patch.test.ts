// The contract of the one patch of the SDK's internals (provider/plugin/
// grpc-add-service-patch.ts): the plugin's gRPC server, started in this
// process as the engine starts it, answers Configure and CheckConfig with
// this provider's own handlers over a real grpc-js client. An SDK upgrade
// that stops handing its provider object to grpc-js's addService, or
// renames those methods, fails here in seconds.
import type * as grpcType from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { configure, type ProviderCore } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { fromSdk } from "../../provider/engine";
import { startPlugin } from "../../provider/plugin/serve";

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
