// The one patch of a library's internals in this package, kept in this one
// file. Pulumi's Node.js plugin server (`main` of @pulumi/pulumi/provider)
// builds its provider service object itself and hands it straight to
// grpc-js's `Server.prototype.addService`, with no way to answer Configure,
// CheckConfig or DiffConfig differently (plugin/config-rpc.ts says why they must
// be). So `addService` is wrapped, on the SDK's own copy of grpc-js (found
// from the SDK's folder: a message of another copy is not one the SDK's
// server can send): when the service added is a provider's, its object goes
// through `wrap` first (it answers Invoke too: plugin/config-rpc.ts). An SDK upgrade that stops going through
// `addService`, or renames those methods, breaks this: its contract test
// (test/engine/grpc-add-service-patch.test.ts) starts the plugin's server
// in-process and calls Configure and CheckConfig over a real grpc-js client
// (test/plugin/timeout-rpc.test.ts: Create and Delete, with their timeouts).
import * as path from "node:path";
import type * as grpcType from "@grpc/grpc-js";

const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));

/** A module as the SDK itself loads it. */
export function fromSdk<T>(id: string): T {
  return require(require.resolve(id, { paths: [sdk] })) as T;
}

/**
 * Makes every later `addService` of a provider service (one that has
 * `checkConfig` and `configure`) register `wrap(implementation)` instead;
 * call before `main`. The answer undoes it (for tests that start servers in
 * one process).
 */
export function patchAddService(wrap: (implementation: object) => object): () => void {
  const grpc = fromSdk<typeof grpcType>("@grpc/grpc-js");
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (service, implementation) {
    const isProvider = "checkConfig" in service && "configure" in service;
    return addService.call(this, service, (isProvider ? wrap(implementation) : implementation) as never);
  };
  return () => {
    grpc.Server.prototype.addService = addService;
  };
}
