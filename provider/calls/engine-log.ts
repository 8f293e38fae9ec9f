// A Reporter that writes to the Pulumi engine's log, attached to one resource.
//
// The dynamic provider runs in its own process, where `pulumi.log` has no
// engine connection (the SDK only wires it up for the program process). The
// engine passes its address to every provider plugin as the first argument,
// so this opens the same Log RPC that `pulumi.log` uses and names the
// resource's URN, which puts each line under that resource in `pulumi up`.
//
// Cost matters at scale: an install reports ~35 progress lines and dozens of
// debug lines of raw command output, and every message is an engine event.
// So each resource has its own delivery chain (finishing one VM never waits
// for another VM's lines), and lines that come within a short window are
// sent together, one message per severity. With real
// step durations lines are seconds apart and go out one by one; when steps
// take no time, as in tests and benchmarks, a burst is one event.
import * as grpc from "@grpc/grpc-js";
import * as engrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engproto from "@pulumi/pulumi/proto/engine_pb";
import type { Reporter } from "../lifecycle";

/** A line waits at most this long for company. */
const WINDOW_MS = 100;
/** ...and at most this many lines are held back. */
const MAX_PENDING = 256;

let client: engrpc.EngineClient | null | undefined;

function engine(): engrpc.EngineClient | null {
  if (client === undefined) {
    // The engine's address is the plugin's first argument that is not a flag
    // (flags such as --logflow or --tracing may come before it).
    const address = process.argv.slice(2).find((a) => /^[\w.-]+:\d+$/.test(a));
    try {
      client = address ? new engrpc.EngineClient(address, grpc.credentials.createInsecure()) : null;
    } catch {
      // e.g. two copies of @grpc/grpc-js that do not recognise each other's credentials:
      // progress then goes to stderr, and the operation itself is unaffected.
      client = null;
    }
  }
  return client;
}

/** Lines of one resource, delivered in order. */
class ResourceLog {
  private chain: Promise<void> = Promise.resolve();
  private pending: { severity: engproto.LogSeverity; message: string }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly eng: engrpc.EngineClient,
    private readonly urn: string,
  ) {}

  line(severity: engproto.LogSeverity, message: string): void {
    this.pending.push({ severity, message });
    if (severity === engproto.LogSeverity.WARNING || this.pending.length >= MAX_PENDING) {
      this.sendPending();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.sendPending(), WINDOW_MS);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    this.sendPending();
    return this.chain;
  }

  private sendPending(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    // One message per severity for the whole window: lines of one severity
    // stay in order; debug lines (only shown with -v) may move after info.
    for (const severity of new Set(this.pending.map((p) => p.severity))) {
      const lines = this.pending.filter((p) => p.severity === severity).map((p) => p.message);
      this.send(severity, lines.join("\n"));
    }
    this.pending = [];
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
