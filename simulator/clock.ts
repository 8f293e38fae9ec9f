// Simulated time. Every duration is given in simulated milliseconds (what the
// real server would take) and slept as ms / speed of real time, so a suite can
// run a ten-minute SSH timeout in a fraction of a second while the messages
// still print the unscaled `(N.NNs)` numbers.

/** Thrown out of sleeps when the simulator shuts down; flows stop quietly. */
export class SimulatorClosed extends Error {
  constructor() {
    super("simulator closed");
  }
}

export class Clock {
  // Simulated time is real time times the speed, summed piece by piece: each
  // speed change closes a piece, so a change never rewrites the time already
  // gone by. `simAtMark` is the simulated time at the real instant `realMark`.
  private simAtMark = 0;
  private realMark = performance.now();

  constructor(
    private speed: number,
    private readonly signal: AbortSignal,
  ) {}

  setSpeed(speed: number): void {
    this.simAtMark = this.now();
    this.realMark = performance.now();
    this.speed = speed;
  }

  /** Simulated ms since this clock started (or since the clock it continues started). */
  now(): number {
    return this.simAtMark + (performance.now() - this.realMark) * this.speed;
  }

  /**
   * A restarted server's clock goes on from the old one's reading (and speed),
   * so simulated times recorded before and after restart() stay in order.
   */
  continueFrom(previous: Clock): void {
    this.simAtMark = previous.now();
    this.realMark = performance.now();
    this.speed = previous.speed;
  }

  get currentSpeed(): number {
    return this.speed;
  }

  /** A sleep that can be ended early: `done` resolves at the time or at cancel(). */
  timer(simMs: number): { done: Promise<void>; cancel: () => void } {
    let cancel = (): void => undefined;
    const early = new Promise<void>((resolve) => (cancel = resolve));
    const wake = new AbortController();
    const done = Promise.race([this.sleep(simMs, wake.signal), early]).finally(() => wake.abort());
    return { done, cancel };
  }

  /** `wake` ends the sleep quietly (it then never resolves: a race decides). */
  sleep(simMs: number, wake?: AbortSignal): Promise<void> {
    if (this.signal.aborted) return Promise.reject(new SimulatorClosed());
    const realMs = simMs / this.speed;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        clearImmediate(immediate);
        wake?.removeEventListener("abort", onWake);
        reject(new SimulatorClosed());
      };
      const onWake = (): void => {
        clearTimeout(timer);
        clearImmediate(immediate);
        this.signal.removeEventListener("abort", onAbort);
      };
      const done = (): void => {
        this.signal.removeEventListener("abort", onAbort);
        wake?.removeEventListener("abort", onWake);
        resolve();
      };
      // A zero sleep still yields to the event loop, so events go out one by
      // one (and a client can react) even with durationsZero.
      const timer = realMs > 0 ? setTimeout(done, realMs) : undefined;
      const immediate = realMs > 0 ? undefined : setImmediate(done);
      this.signal.addEventListener("abort", onAbort, { once: true });
      wake?.addEventListener("abort", onWake, { once: true });
    });
  }
}

/** Go's `%.2f` of seconds, from integer-ish milliseconds. */
export function seconds(ms: number): string {
  return (Math.round(ms / 10) / 100).toFixed(2);
}

/** `2025-01-01 00:00:07`, the timestamp format of Proxmox task logs (UTC here). */
export function taskTimestamp(startIso: string, offsetMs: number): string {
  const d = new Date(Date.parse(startIso) + Math.floor(offsetMs));
  const p = (n: number): string => String(n).padStart(2, "0");
  return (
    `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`
  );
}
