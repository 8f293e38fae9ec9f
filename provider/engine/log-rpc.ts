// The engine's Log RPC, for the provider core's engine log. A provider
// process has no `pulumi.log` of its own (the SDK wires that up for the
// program process only); the engine passes its address to every provider
// plugin as an argument, so this opens the same RPC and names the
// resource's URN, which puts each line under that resource in `pulumi up`.
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import type { LogTransport, Severity } from "../core";

const SEVERITY: Record<Severity, engproto.LogSeverity> = {
  info: engproto.LogSeverity.INFO,
  warning: engproto.LogSeverity.WARNING,
  debug: engproto.LogSeverity.DEBUG,
};

/**
 * A transport to the engine at the address among `argv` (the first argument
 * that is not a flag: --logflow or --tracing may come before it); undefined
 * outside the engine, or when no client can be made: progress then goes to
 * stderr, and the operation itself is unaffected.
 */
export function engineLogTransport(argv: readonly string[]): LogTransport | undefined {
  const address = argv.slice(2).find((a) => /^[\w.-]+:\d+$/.test(a));
  if (!address) return undefined;
  let client: engrpc.EngineClient;
  try {
    client = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
  } catch {
    // e.g. two copies of @grpc/grpc-js that do not recognise each other's credentials
    return undefined;
  }
  return (urn, severity, message) => {
    const req = new engproto.LogRequest();
    req.setSeverity(SEVERITY[severity]);
    req.setMessage(message);
    req.setUrn(urn);
    return new Promise<void>((resolve) => client.log(req, () => resolve()));
  };
}
