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
//
// The delivery itself (the engine's Log RPC) is the ways in's business: the
// core is given a LogTransport, or writes to stderr without one.
import type { Reporter } from "../lifecycle";

/** A line waits at most this long for company. */
const WINDOW_MS = 100;
/** ...and at most this many lines are held back. */
const MAX_PENDING = 256;

export type Severity = "info" | "warning" | "debug";

/** Sends one message (lines joined) under a resource's URN; resolves once it is delivered or dropped. */
export type LogTransport = (urn: string, severity: Severity, message: string) => Promise<void>;

/** Lines of one resource, delivered in order. */
class ResourceLog {
  private chain: Promise<void> = Promise.resolve();
  private pending: { severity: Severity; message: string }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: LogTransport,
    private readonly urn: string,
  ) {}

  line(severity: Severity, message: string): void {
    this.pending.push({ severity, message });
    if (severity === "warning" || this.pending.length >= MAX_PENDING) {
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
      const message = lines.join("\n");
      // A line that cannot be delivered is dropped: logging never fails an operation.
      this.chain = this.chain.then(() => this.send(this.urn, severity, message).catch(() => undefined));
    }
    this.pending = [];
  }
}

/** The engine log of one provider core: a delivery chain per resource. */
export class EngineLog {
  private readonly logs = new Map<string, ResourceLog>();

  /** @param transport the engine's Log RPC, made on first use; undefined outside the engine */
  constructor(private readonly transport: () => LogTransport | undefined) {}

  /** A Reporter for the resource with this URN ("" for none). */
  reporter(urn: string): Reporter {
    const send = this.transport();
    if (!send) {
      // Outside the engine (unit tests, scripts): plain stderr.
      const write = (level: string) => (m: string) => void process.stderr.write(`${level}: ${m}\n`);
      return { info: write("info"), warn: write("warning"), debug: write("debug") };
    }
    let log = this.logs.get(urn);
    if (!log) {
      log = new ResourceLog(send, urn);
      this.logs.set(urn, log);
    }
    const target = log;
    return {
      info: (m) => target.line("info", m),
      warn: (m) => target.line("warning", m),
      debug: (m) => target.line("debug", m),
    };
  }

  /** Resolves when every line reported for this resource so far has reached the engine. */
  flush(urn: string): Promise<void> {
    const log = this.logs.get(urn);
    if (!log) return Promise.resolve();
    this.logs.delete(urn);
    return log.flush();
  }
}
