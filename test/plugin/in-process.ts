// The resource plugin's gRPC server started in this process as the engine
// starts it (the port it prints on stdout), with a grpc-js client to it and a
// stop for the server the SDK made: for the tests of what goes over the wire.
import type * as grpcType from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type { ProviderCore } from "../../provider/core";
import { fromSdk } from "../../provider/engine";
import { startPlugin } from "../../provider/plugin/serve";

interface StructType {
  toJavaScript(): unknown;
}
/** google-protobuf's Struct, as the SDK loads it. */
export const { Struct } = fromSdk<{ Struct: { fromJavaScript(value: object): StructType } }>(
  "google-protobuf/google/protobuf/struct_pb",
);
const grpc = fromSdk<typeof grpcType>("@grpc/grpc-js");

export async function startInProcess(
  core: ProviderCore,
): Promise<{ client: provrpc.ResourceProviderClient; port: string; stop(): Promise<void> }> {
  const servers: grpcType.Server[] = [];
  // The server the SDK makes, to stop it after the tests; the port it prints, to reach it.
  const bind = grpc.Server.prototype.bindAsync;
  const spy = jest.spyOn(grpc.Server.prototype, "bindAsync").mockImplementation(function (
    this: grpcType.Server,
    ...args
  ) {
    servers.push(this);
    return bind.apply(this, args);
  });
  const printed = jest.spyOn(console, "log").mockImplementation(() => undefined);
  await startPlugin(core, []);
  const port = String(printed.mock.calls.at(-1)?.[0]);
  printed.mockRestore();
  spy.mockRestore();
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return {
    client,
    port,
    stop: async () => {
      client.close();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.tryShutdown(() => resolve()))));
    },
  };
}
