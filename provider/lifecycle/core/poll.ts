// Waiting on the server, in one place: `poll` asks a probe again and again
// until its answer is what we wait for or a deadline passes; `waitFor` lets a
// slow request run up to a deadline while saying every so often that we are
// still waiting. Both read the time from the context's clock (tests inject a
// fake one, so nothing here needs wall time to be tested).
//
// Rules shared by every wait of the lifecycle:
// - an error of the probe (a busy or briefly unreachable server) is
//   tolerated until the deadline, unless the caller calls it `fatal`;
// - a cancellation (the context's signal) is never swallowed: it is rethrown
//   at once, whatever the probe was doing;
// - there is always at least one probe, even with a deadline of 0.
import { clockOf, timingOf } from "./context";
import type { Clock, LifecycleContext } from "./context";
import { CODES, LifecycleError } from "../model";

export interface PollSpec<T> {
  /** One question to the server. Gets the context's signal. */
  probe(signal?: AbortSignal): Promise<T>;
  /** The answer we wait for. */
  done(value: T): boolean;
  /** How long to keep asking, from the first probe. */
  timeoutMs: number;
  /** Between two probes (asked again after each one when a function); the context's pollIntervalMs when omitted. */
  intervalMs?: number | (() => number);
  /** An error that ends the wait at once (rethrown): a definite answer, not a hiccup. */
  fatal?(err: unknown): boolean;
  /** After each round that did not end the wait (for debug lines). */
  onRound?(round: PollRound<T>): void;
}

export interface PollRound<T> {
  /** 1-based */
  round: number;
  elapsedMs: number;
  /** this round's answer, when the probe answered */
  value?: T;
  /** this round's error, when the probe failed */
  error?: unknown;
}

export type PollResult<T> =
  | { reached: true; value: T; rounds: number; elapsedMs: number }
  | {
      reached: false;
      /** the last answer the probe gave (an older one when later rounds failed) */
      last?: T;
      /** the error of the final round, when it failed */
      lastError?: unknown;
      rounds: number;
      elapsedMs: number;
    };

/** Asks `spec.probe` until `spec.done` holds or `spec.timeoutMs` has passed. */
export async function poll<T>(ctx: LifecycleContext, spec: PollSpec<T>): Promise<PollResult<T>> {
  const clock = clockOf(ctx);
  const interval = spec.intervalMs ?? timingOf(ctx).pollIntervalMs;
  const intervalMs = typeof interval === "number" ? () => interval : interval;
  const start = clock.now();
  const deadline = start + spec.timeoutMs;
  let last: T | undefined;
  for (let round = 1; ; round++) {
    throwIfCancelled(ctx.signal);
    let value: T | undefined;
    let error: unknown;
    let answered = false;
    try {
      value = await spec.probe(ctx.signal);
      answered = true;
    } catch (err) {
      throwIfCancelled(ctx.signal, err);
      if (spec.fatal?.(err)) throw err;
      error = err ?? new Error("the probe failed without a reason");
    }
    const elapsedMs = clock.now() - start;
    if (answered) {
      last = value;
      if (spec.done(value as T)) return { reached: true, value: value as T, rounds: round, elapsedMs };
    }
    if (clock.now() >= deadline) {
      return { reached: false, last, lastError: answered ? undefined : error, rounds: round, elapsedMs };
    }
    spec.onRound?.(answered ? { round, elapsedMs, value } : { round, elapsedMs, error });
    await clock.sleep(Math.min(intervalMs(), Math.max(0, deadline - clock.now())), ctx.signal);
  }
}

export interface WaitSpec {
  /** How long the work may take. */
  timeoutMs: number;
  /** Say that we are still waiting this often (never when omitted). */
  tickMs?: number;
  /** At each tick, with the time it marks (tickMs, twice that, ...), however late its timer fired. */
  onTick?(elapsedMs: number): void;
}

export type WaitResult<T> = { settled: true; value: T; elapsedMs: number } | { settled: false; elapsedMs: number };

/**
 * Waits for `work` up to `spec.timeoutMs` by the context's clock, calling
 * `onTick` every `tickMs` meanwhile. Resolves with the work's value, or
 * `settled: false` when the time is up (the work is left running: the caller
 * aborts it). Rejects with the work's error, or at once on cancellation.
 */
export async function waitFor<T>(ctx: LifecycleContext, work: Promise<T>, spec: WaitSpec): Promise<WaitResult<T>> {
  const clock = clockOf(ctx);
  const start = clock.now();
  const outcome = work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let nextTick = spec.tickMs === undefined ? Infinity : start + spec.tickMs;
  for (;;) {
    throwIfCancelled(ctx.signal);
    const now = clock.now();
    const deadline = start + spec.timeoutMs;
    if (now >= deadline) return { settled: false, elapsedMs: now - start };
    const pause = Math.max(0, Math.min(deadline, nextTick) - now);
    const settled = await raceSleep(clock, outcome, pause, ctx.signal);
    if (settled !== undefined) {
      if (!settled.ok) throw settled.error;
      return { settled: true, value: settled.value, elapsedMs: clock.now() - start };
    }
    if (clock.now() >= nextTick && clock.now() < deadline) {
      // the tick's own mark (30 s, 60 s, ...): a timer that fired late on a busy machine does not show
      spec.onTick?.(nextTick - start);
      nextTick += spec.tickMs ?? Infinity;
    }
  }
}

/** The work's outcome if it settles within `ms`, else undefined (the timer is cleared either way). */
async function raceSleep<R>(
  clock: Clock,
  outcome: Promise<R>,
  ms: number,
  signal?: AbortSignal,
): Promise<R | undefined> {
  const stop = new AbortController();
  const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const timer = clock.sleep(ms, both).then(
    () => undefined,
    () => undefined,
  );
  try {
    return await Promise.race([outcome, timer]);
  } finally {
    stop.abort();
  }
}

/** A cancelled context ends every wait; `cause` is the probe's error when it had one. */
function throwIfCancelled(signal: AbortSignal | undefined, cause?: unknown): void {
  if (!signal?.aborted) return;
  if (cause !== undefined) throw cause;
  throw new LifecycleError("cancelled", { cause: signal.reason, code: CODES.cancelled });
}
