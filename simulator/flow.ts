// One streamed operation in progress: its simulated time (for the `(N.NNs)`
// texts, measured like the server's stepStart / time.Since pairs), its event
// stream, and the fault points it passes (`enter` for drop/stall/delay at a
// step, `failing` for a step whose action fails).
import type { SimCore } from "./core";
import { shown, type OutLine } from "./outputs";
import type { FaultRule, Op } from "./schemas";
import type { Corruption, EventStream } from "./sse";

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
