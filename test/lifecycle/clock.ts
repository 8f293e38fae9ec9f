// A virtual clock for lifecycle tests: time moves only when every pending
// piece of work is waiting on it. Each turn of the event loop (setImmediate)
// jumps to the earliest timer and fires it, so a "10-minute" wait takes a few
// milliseconds of wall time and the order of events is fully determined
// (timers due at the same moment fire in the order they were set).
import type { Clock } from "../../provider/lifecycle/core/context";
import { CODES, LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";

interface Timer {
  at: number;
  seq: number;
  fire(): void;
}

export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];
  private scheduled = false;

  constructor(readonly start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  /** Virtual time passed since the clock was made. */
  elapsed(): number {
    return this.t - this.start;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new LifecycleError("cancelled", { code: CODES.cancelled }));
        return;
      }
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(new LifecycleError("cancelled", { code: CODES.cancelled }));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.timers.push(timer);
      this.schedule();
    });
  }

  /** Resolves once virtual time reaches `now() + ms` (for fake servers: "answers after 5 minutes"). */
  after(ms: number): Promise<void> {
    return this.sleep(ms);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.timers.length === 0) return;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.fire();
      if (this.timers.length > 0) this.schedule();
    });
  }
}
