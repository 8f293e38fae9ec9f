// A Reporter that writes to the Pulumi engine's log, attached to one resource.
//
// The dynamic provider runs in its own process, where `pulumi.log` has no
// engine connection (the SDK only wires it up for the program process). The
// engine passes its address to every provider plugin as the first argument,
// so this opens the same Log RPC that `pulumi.log` uses and names the
// resource's URN, which puts each line under that resource in `pulumi up`.
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import type { Reporter } from "../lifecycle";

let client: engrpc.EngineClient | undefined | null;
// Lines are delivered one after another so they show in order.
let last: Promise<void> = Promise.resolve();

function engine(): engrpc.EngineClient | undefined {
  if (client === undefined) {
    const address = process.argv[2];
    client =
      address && /^[\w.-]+:\d+$/.test(address)
        ? new engrpc.EngineClient(address, grpc.credentials.createInsecure())
        : null;
  }
  return client ?? undefined;
}

function send(severity: engproto.LogSeverity, message: string, urn: string): void {
  const eng = engine();
  if (!eng) {
    // Outside the engine (unit tests, scripts): plain stderr.
    process.stderr.write(`${engproto.LogSeverity[severity] ?? severity}: ${message}\n`);
    return;
  }
  const req = new engproto.LogRequest();
  req.setSeverity(severity);
  req.setMessage(message);
  req.setUrn(urn);
  last = last.then(
    () =>
      new Promise<void>((resolve) => {
        eng.log(req, () => resolve());
      }),
  );
}

/** A Reporter for the resource with this URN ("" for none). */
export function engineReporter(urn: string): Reporter {
  return {
    info: (m) => send(engproto.LogSeverity.INFO, m, urn),
    warn: (m) => send(engproto.LogSeverity.WARNING, m, urn),
    debug: (m) => send(engproto.LogSeverity.DEBUG, m, urn),
  };
}

/** Resolves when every line sent so far has reached the engine. */
export function flushEngineLog(): Promise<void> {
  return last;
}
