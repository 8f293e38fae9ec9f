// When to give up on a stream: the caller's AbortSignal, an overall deadline,
// and an idle limit.
//
// The idle limit must tolerate the server's documented silences (up to ~10
// minutes while it waits for SSH), so it defaults to 15 minutes, and any
// received byte - an event, a `: keepalive` comment, a heartbeat, a `retry:`
// field, half a line - counts as life. Re-arming a timer per chunk would cost a
// timer allocation per 64 KB; instead `touch()` stores a timestamp and the one
// idle timer, when it fires, re-arms itself for the remaining quiet time.

export type StopCause =
  | { kind: "idle-timeout"; afterMs: number }
  | { kind: "overall-timeout"; afterMs: number }
  | { kind: "aborted"; reason: unknown };

export interface WatchdogOptions {
  /** 0 disables the idle limit */
  idleMs: number;
  /** 0 disables the overall limit */
  overallMs: number;
  signal?: AbortSignal;
}

// setTimeout clamps larger delays to 1 ms; keep long limits correct by waiting in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Watchdog {
  private cause: StopCause | undefined;
  private listener: ((cause: StopCause) => void) | undefined;
  private idleMs: number;
  private lastActivity = performance.now();
  private readonly startedAt = this.lastActivity;
  private readonly overallMs: number;
  private idleTimer: NodeJS.Timeout | undefined;
  private overallTimer: NodeJS.Timeout | undefined;
  private readonly signal?: AbortSignal;
  private readonly onAbort = () => this.stop({ kind: "aborted", reason: this.signal?.reason });

  constructor(options: WatchdogOptions) {
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
    this.lastActivity = performance.now();
  }

  /** Change the idle limit from now on (e.g. a short grace once the operation's close arrived). */
  setIdle(ms: number): void {
    this.idleMs = positive(ms);
    this.lastActivity = performance.now();
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.idleMs > 0 && !this.cause) this.armIdle(this.idleMs);
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.overallTimer);
    this.idleTimer = this.overallTimer = undefined;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.listener = undefined;
  }

  private armIdle(delay: number): void {
    this.idleTimer = setTimeout(() => this.checkIdle(), Math.min(Math.max(1, Math.ceil(delay)), MAX_TIMER_MS));
  }

  private checkIdle(): void {
    this.idleTimer = undefined;
    if (this.cause) return;
    const quiet = performance.now() - this.lastActivity;
    if (quiet >= this.idleMs) this.stop({ kind: "idle-timeout", afterMs: this.idleMs });
    else this.armIdle(this.idleMs - quiet);
  }

  private armOverall(): void {
    const left = this.overallMs - (performance.now() - this.startedAt);
    if (left <= 0) {
      this.stop({ kind: "overall-timeout", afterMs: this.overallMs });
      return;
    }
    this.overallTimer = setTimeout(() => this.armOverall(), Math.min(Math.max(1, Math.ceil(left)), MAX_TIMER_MS));
  }

  private stop(cause: StopCause): void {
    if (this.cause) return;
    this.cause = cause;
    clearTimeout(this.idleTimer);
    clearTimeout(this.overallTimer);
    this.signal?.removeEventListener("abort", this.onAbort);
    this.listener?.(cause);
  }
}

function positive(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}
