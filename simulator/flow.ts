// One streamed operation in progress: its simulated time (for the `(N.NNs)`
// texts, measured like the server's stepStart / time.Since pairs), its event
// stream, and the fault points it passes (`enter` for drop/stall/delay/
// corruption/error frames at a step, `failing` for a step whose action fails).
import type { SimCore } from "./core";
import { shown, type OutLine } from "./outputs";
import { frameFlow } from "./fault-rules";
import type { FaultRule, Op } from "./fault-rules";
import type { Corruption, EventStream } from "./sse";

const FRAME_BODY = '{"message":"operation failed"}';

/**
 * Thrown out of a flow that an error frame ended (`flow: "stops"`): the
 * operation goes no further, leaves the VM as it is and cleans nothing up;
 * the response has already been ended.
 */
export class OperationStopped extends Error {
  constructor(readonly event: string) {
    super(`operation stopped by an "${event}" frame`);
  }
}

export class Flow {
  /** Simulated ms since the operation began. */
  elapsed = 0;
  private mark = 0;

  constructor(
    readonly core: SimCore,
    readonly stream: EventStream,
    readonly op: Op,
    /** The VM concerned (install: 0 until assigned). */
    public vmid: number,
    /** Names fault rules may match: requested name, real name. */
    public names: string[],
  ) {}

  get d(): SimCore["cfg"]["durations"] {
    return this.core.cfg.durations;
  }

  /** stepStart = time.Now() */
  startStep(): void {
    this.mark = this.elapsed;
  }

  /** time.Since(stepStart), in simulated ms. */
  since(): number {
    return this.elapsed - this.mark;
  }

  async spend(simMs: number): Promise<void> {
    await this.core.clock.sleep(simMs);
    this.elapsed += simMs;
  }

  emit(step: string, status: string, message: string): void {
    this.stream.event(step, status, message);
  }

  private query(step: string): { op: Op; step: string; vmid: number; names: string[] } {
    return { op: this.op, step, vmid: this.vmid, names: this.names };
  }

  /** The flow reaches `step`: connection, corruption and delay faults strike here. */
  async enter(step: string): Promise<void> {
    const q = this.query(step);
    const cut = this.core.faults.take(q, ["drop", "stall"]);
    if (cut?.kind === "drop") {
      this.core.stats.connectionsDropped++;
      this.stream.drop();
    } else if (cut?.kind === "stall") {
      this.stream.stall();
    }
    for (const kind of ["garble", "cut", "late", "lose", "reorder"] as const) {
      const rule = this.core.faults.take(q, [kind]);
      if (rule) this.corrupt(corruptionOf(rule));
    }
    const delay = this.core.faults.take(q, ["delay"]);
    if (delay) await this.spend(delay.ms ?? 0);
    const named = this.core.faults.take(q, ["error-frame"]);
    if (named) this.errorFrame(named);
  }

  /** Writes a named error frame and what follows it; throws OperationStopped when the operation ends there. */
  private errorFrame(rule: FaultRule): void {
    const event = rule.event ?? "error";
    this.stream.named(event, rule.body ?? FRAME_BODY);
    const then = rule.then ?? "close";
    if (then === "close") this.stream.close();
    else if (then === "end") this.stream.finish();
    if (frameFlow(rule) === "stops") throw new OperationStopped(event);
  }

  /** Arms a corruption of the stream (the flow itself carries on). */
  corrupt(c: Corruption): void {
    this.core.stats.streamsCorrupted++;
    if (c.kind === "cut") this.core.stats.connectionsDropped++;
    this.stream.corrupt(c);
  }

  /** The fail rule for `step`, if one strikes now. */
  failing(step: string): FaultRule | undefined {
    return this.core.faults.take(this.query(step), ["fail"]);
  }

  /** Streams command output under `step` (runCommandSSE), spread over `totalMs`. */
  async output(step: string, lines: readonly OutLine[], totalMs: number): Promise<void> {
    // runCommandSSE's two writer goroutines: where the measured rates strike.
    for (const c of this.core.rates?.forOutput(this.op, step, lines.length) ?? []) {
      this.core.log(`measured rates: ${c.kind} in ${this.op} at "${step}"${this.vmid ? ` vmid ${this.vmid}` : ""}`);
      this.corrupt(c);
    }
    const each = lines.length > 0 ? totalMs / lines.length : totalMs;
    if (lines.length === 0) await this.spend(totalMs);
    for (const line of lines) {
      await this.spend(each);
      this.emit(step, "processing", shown(line));
    }
  }
}

function corruptionOf(rule: FaultRule): Corruption {
  const skip = rule.skip ?? 0;
  switch (rule.kind) {
    case "garble":
      return { kind: "garble", variant: rule.variant ?? "fragment", skip };
    case "lose":
    case "reorder":
      return { kind: rule.kind, lines: rule.lines ?? 1, skip };
    default:
      return { kind: rule.kind === "cut" ? "cut" : "late", skip };
  }
}
