// A clock for the stream watchdog that moves only when a test says: limits
// fire on the test's cue, in order, with no wall-clock waits.
import type { WatchdogClock } from "../../../provider/client/stream/liveness";

export class FakeClock implements WatchdogClock {
  private t = 0;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }

  clearTimer(timer: unknown): void {
    this.timers.delete(timer as number);
  }

  /** Moves time on by `ms`, firing every timer that falls due, earliest first. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
    }
    this.t = end;
  }

  /** Timers waiting (0 once the watchdog is disposed or stopped). */
  get pending(): number {
    return this.timers.size;
  }
}

/** Lets every pending promise reaction and I/O callback run (event-loop order, not time). */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
