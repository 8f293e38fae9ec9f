// A Reporter that writes to the Pulumi engine's log, attached to one resource.
//
// The dynamic provider runs in its own process, where `pulumi.log` has no
// engine connection (the SDK only wires it up for the program process). The
// engine passes its address to every provider plugin as the first argument,
// so this opens the same Log RPC that `pulumi.log` uses and names the
// resource's URN, which puts each line under that resource in `pulumi up`.
//
// Cost matters at scale (an install reports ~35 info lines and dozens of
// debug lines of raw command output): each resource has its own delivery
// chain, so finishing one VM never waits for another VM's lines, and debug
// lines are sent in batches (one message of many lines) rather than one RPC
// each.
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import type { Reporter } from "../lifecycle";

/** Debug lines held back at most this many at a time. */
const DEBUG_BATCH = 64;

let client: engrpc.EngineClient | null | undefined;

function engine(): engrpc.EngineClient | null {
  if (client === undefined) {
    const address = process.argv[2];
    client =
      address && /^[\w.-]+:\d+$/.test(address)
        ? new engrpc.EngineClient(address, grpc.credentials.createInsecure())
        : null;
  }
  return client;
}

/** Lines of one resource, delivered in order. */
class ResourceLog {
  private chain: Promise<void> = Promise.resolve();
  private debug: string[] = [];

  constructor(
    private readonly eng: engrpc.EngineClient,
    private readonly urn: string,
  ) {}

  line(severity: engproto.LogSeverity, message: string): void {
    if (severity === engproto.LogSeverity.DEBUG) {
      this.debug.push(message);
      if (this.debug.length >= DEBUG_BATCH) this.flushDebug();
      return;
    }
    this.flushDebug();
    this.send(severity, message);
  }

  flush(): Promise<void> {
    this.flushDebug();
    return this.chain;
  }

  private flushDebug(): void {
    if (this.debug.length === 0) return;
    const batch = this.debug.join("\n");
    this.debug = [];
    this.send(engproto.LogSeverity.DEBUG, batch);
  }

  private send(severity: engproto.LogSeverity, message: string): void {
    const req = new engproto.LogRequest();
    req.setSeverity(severity);
    req.setMessage(message);
    req.setUrn(this.urn);
    // A line that cannot be delivered is dropped: logging never fails an operation.
    this.chain = this.chain.then(() => new Promise<void>((resolve) => this.eng.log(req, () => resolve())));
  }
}

const logs = new Map<string, ResourceLog>();

/** A Reporter for the resource with this URN ("" for none). */
export function engineReporter(urn: string): Reporter {
  const eng = engine();
  if (!eng) {
    // Outside the engine (unit tests, scripts): plain stderr.
    const write = (level: string) => (m: string) => void process.stderr.write(`${level}: ${m}\n`);
    return { info: write("info"), warn: write("warning"), debug: write("debug") };
  }
  let log = logs.get(urn);
  if (!log) {
    log = new ResourceLog(eng, urn);
    logs.set(urn, log);
  }
  const target = log;
  return {
    info: (m) => target.line(engproto.LogSeverity.INFO, m),
    warn: (m) => target.line(engproto.LogSeverity.WARNING, m),
    debug: (m) => target.line(engproto.LogSeverity.DEBUG, m),
  };
}

/** Resolves when every line reported for this resource so far has reached the engine. */
export function flushEngineLog(urn: string): Promise<void> {
  const log = logs.get(urn);
  if (!log) return Promise.resolve();
  logs.delete(urn);
  return log.flush();
}
