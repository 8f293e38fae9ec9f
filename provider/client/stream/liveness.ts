// When to give up on a stream: the caller's AbortSignal, an overall deadline,
// an idle limit, and a limit on the wait for the answer's headers.
//
// go-pve-qemu sends its event-stream headers before it does any work, so a
// request whose headers do not come within a short time was never begun by
// the server itself; only a gateway that buffers whole answers holds them
// back, and such a gateway answers after its own timeout (29-100 s for the
// common ones). The headers limit sits past those.
//
// The idle limit must tolerate the server's documented silences (up to ~10
// minutes while it waits for SSH), so it defaults to 15 minutes, and any
// received byte - an event, a `: keepalive` comment, a heartbeat, a `retry:`
// field, half a line - counts as life. Re-arming a timer per chunk would cost a
// timer allocation per 64 KB; instead `touch()` stores a timestamp and the one
// idle timer, when it fires, re-arms itself for the remaining quiet time.

export type StopCause =
  | { kind: "headers-timeout"; afterMs: number }
  | { kind: "idle-timeout"; afterMs: number }
  | { kind: "overall-timeout"; afterMs: number }
  | { kind: "aborted"; reason: unknown };

/** Time as the watchdog sees it; injected by tests so limits fire on their cue, not the wall clock's. */
export interface WatchdogClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(timer: unknown): void;
}

const SYSTEM_CLOCK: WatchdogClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

export interface WatchdogOptions {
  /** 0 disables the idle limit */
  idleMs: number;
  /** 0 disables the overall limit */
  overallMs: number;
  /** until answered(): the longest wait for the answer's headers; 0 (default) leaves it to the idle limit */
  headersMs?: number;
  signal?: AbortSignal;
  /** default: performance.now() and setTimeout */
  clock?: WatchdogClock;
}

// setTimeout clamps larger delays to 1 ms; keep long limits correct by waiting in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Watchdog {
  private cause: StopCause | undefined;
  private listener: ((cause: StopCause) => void) | undefined;
  private idleMs: number;
  private readonly clock: WatchdogClock;
  private lastActivity: number;
  private readonly startedAt: number;
  private readonly overallMs: number;
  private idleTimer: unknown;
  private overallTimer: unknown;
  private headersTimer: unknown;
  private readonly signal?: AbortSignal;
  private readonly onAbort = () => this.stop({ kind: "aborted", reason: this.signal?.reason });

  constructor(options: WatchdogOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.lastActivity = this.startedAt = this.clock.now();
    this.idleMs = positive(options.idleMs);
    this.overallMs = positive(options.overallMs);
    this.signal = options.signal;
    if (this.signal?.aborted) {
      this.cause = { kind: "aborted", reason: this.signal.reason };
      return;
    }
    this.signal?.addEventListener("abort", this.onAbort, { once: true });
    if (this.idleMs > 0) this.armIdle(this.idleMs);
    if (this.overallMs > 0) this.armOverall();
    const headersMs = positive(options.headersMs ?? 0);
    if (headersMs > 0) {
      this.headersTimer = this.clock.setTimer(
        () => this.stop({ kind: "headers-timeout", afterMs: headersMs }),
        Math.min(Math.max(1, Math.ceil(headersMs)), MAX_TIMER_MS),
      );
    }
  }

  /** The answer's headers arrived: the headers limit no longer applies. */
  answered(): void {
    this.clock.clearTimer(this.headersTimer);
    this.headersTimer = undefined;
    this.touch();
  }

  /** Why the stream must stop, once it must. */
  get stopped(): StopCause | undefined {
    return this.cause;
  }

  /** One listener (the reader); called at once if already stopped. */
  onStop(listener: ((cause: StopCause) => void) | undefined): void {
    this.listener = listener;
    if (listener && this.cause) listener(this.cause);
  }

  /** Something arrived from the server. */
  touch(): void {
    this.lastActivity = this.clock.now();
  }

  /** Change the idle limit from now on (e.g. a short grace once the operation's close arrived). */
  setIdle(ms: number): void {
    this.idleMs = positive(ms);
    this.lastActivity = this.clock.now();
    this.clock.clearTimer(this.idleTimer);
    this.idleTimer = undefined;
    if (this.idleMs > 0 && !this.cause) this.armIdle(this.idleMs);
  }

  dispose(): void {
    this.clock.clearTimer(this.idleTimer);
    this.clock.clearTimer(this.overallTimer);
    this.clock.clearTimer(this.headersTimer);
    this.idleTimer = this.overallTimer = this.headersTimer = undefined;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.listener = undefined;
  }

  private armIdle(delay: number): void {
    this.idleTimer = this.clock.setTimer(() => this.checkIdle(), Math.min(Math.max(1, Math.ceil(delay)), MAX_TIMER_MS));
  }

  private checkIdle(): void {
    this.idleTimer = undefined;
    if (this.cause) return;
    const quiet = this.clock.now() - this.lastActivity;
    if (quiet >= this.idleMs) this.stop({ kind: "idle-timeout", afterMs: this.idleMs });
    else this.armIdle(this.idleMs - quiet);
  }

  private armOverall(): void {
    const left = this.overallMs - (this.clock.now() - this.startedAt);
    if (left <= 0) {
      this.stop({ kind: "overall-timeout", afterMs: this.overallMs });
      return;
    }
    this.overallTimer = this.clock.setTimer(
      () => this.armOverall(),
      Math.min(Math.max(1, Math.ceil(left)), MAX_TIMER_MS),
    );
  }

  private stop(cause: StopCause): void {
    if (this.cause) return;
    this.cause = cause;
    this.clock.clearTimer(this.idleTimer);
    this.clock.clearTimer(this.overallTimer);
    this.clock.clearTimer(this.headersTimer);
    this.signal?.removeEventListener("abort", this.onAbort);
    this.listener?.(cause);
  }
}

function positive(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
