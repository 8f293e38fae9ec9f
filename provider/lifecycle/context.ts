// What every lifecycle function is given by its caller (the Pulumi glue, or a
// test): where to report progress, how to get a client for a connection,
// connection defaults, timing, and a cancellation signal. Nothing here knows
// Pulumi.
import type { GoPveQemuApi } from "../client/api";
import { LifecycleError } from "./errors";
import type { ConnectionDefaults, ResolvedConnection } from "./connection";

export type { ResolvedConnection, ConnectionDefaults, ConnectionSettings } from "./connection";

/** Progress and warnings for the user; the glue logs through Pulumi, tests capture lines. */
export interface Reporter {
  info(msg: string): void;
  warn(msg: string): void;
  debug(msg: string): void;
}

/** How long to wait for things on the server. Tests shrink these. */
export interface Timing {
  /** Between two polls of list/status. */
  pollIntervalMs: number;
  /**
   * A graceful shutdown may take this long before we fall back to a hard stop.
   * The real server's `shutdown` answers only once the guest is off (`qm
   * shutdown` waits), and real guests take minutes: the default is 10 minutes.
   */
  shutdownTimeoutMs: number;
  /** After a hard stop, how long until status must say `stopped`. */
  stopTimeoutMs: number;
  /**
   * After a stream was lost (dropped, silent), the longest we keep asking the
   * server for the VM: an install, or a start, reboot or migration of an
   * update. The server's own SSH waits take up to ~10 minutes twice, so the
   * default is generous.
   */
  followTimeoutMs: number;
  /** After a successful install or start, how long the list may lag behind. */
  confirmTimeoutMs: number;
  /** After destroy, how long until the VM must be gone from the list. */
  goneTimeoutMs: number;
}

export const DEFAULT_TIMING: Timing = {
  pollIntervalMs: 2_000,
  shutdownTimeoutMs: 600_000,
  stopTimeoutMs: 60_000,
  followTimeoutMs: 25 * 60_000,
  confirmTimeoutMs: 60_000,
  goneTimeoutMs: 120_000,
};

export interface LifecycleContext {
  reporter: Reporter;
  /** A client for this connection. The caller owns clients (may cache and close them); the lifecycle never closes one. */
  client(conn: ResolvedConnection): GoPveQemuApi;
  /** Stack config goPveQemu:endpoint/token, then env GO_PVE_QEMU_ENDPOINT/GO_PVE_QEMU_TOKEN, resolved by the glue. */
  connectionDefaults?: ConnectionDefaults;
  timing?: Partial<Timing>;
  signal?: AbortSignal;
  /** Time as the lifecycle sees it (deadlines, pauses between polls); the real clock when omitted. Tests inject a fake one. */
  clock?: Clock;
}

/** Where the lifecycle reads the time and waits. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects (LifecycleError "cancelled") when the signal fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const REAL_CLOCK: Clock = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

export function clockOf(ctx: Pick<LifecycleContext, "clock">): Clock {
  return ctx.clock ?? REAL_CLOCK;
}

export function timingOf(ctx: LifecycleContext): Timing {
  return { ...DEFAULT_TIMING, ...ctx.timing };
}

/** Resolves after `ms`, or rejects when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new LifecycleError("cancelled"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new LifecycleError("cancelled"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
