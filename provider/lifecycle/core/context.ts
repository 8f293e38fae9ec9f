// What every lifecycle function is given by its caller (the Pulumi glue, or a
// test): where to report progress, how to get a client for a connection,
// connection defaults, timing, and a cancellation signal. Nothing here knows
// Pulumi.
import type { GoPveQemuApi, OpenBounds } from "../../client";
import { DEFAULT_OPEN_BOUNDS } from "../../client";
import { CODES, LifecycleError } from "../model";
import type { ConnectionDefaults, ResolvedConnection, InstallJournal, ServerNodes } from "../model";
import type { DowntimeRules } from "./downtime-budget";
import type { ProcessScope } from "./process-scope";

export type { ResolvedConnection } from "../model";

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
   * Between two reads of the live power state alone, while a followed install
   * may be about to reboot its VM: the reboot's stopped moment lasts seconds,
   * and it is what settles the install early. Full looks stay at pollIntervalMs.
   */
  rebootWatchIntervalMs: number;
  /**
   * A graceful shutdown may take this long before we fall back to a hard stop.
   * The real server's `shutdown` answers only once the guest is off (`qm
   * shutdown` waits), and real guests take minutes: the default is 10 minutes.
   */
  shutdownTimeoutMs: number;
  /** After a hard stop, how long until status must say `stopped`. */
  stopTimeoutMs: number;
  /**
   * After a stream was lost, the longest it is followed by asking the server:
   * an install, or a start, reboot or migration of an update. The follow ends
   * sooner, as soon as the outcome is known or the remaining steps could no
   * longer take longer (decideLost, decideOperation); this cap only matters
   * when the bounds below are larger. When it ends an install's follow first,
   * the VM is recorded as unconfirmed and the next refresh or up settles it.
   */
  followTimeoutMs: number;
  /**
   * How long a followed or taken-over install whose VM exists may go
   * unsettled before it is recorded as unconfirmed (the create succeeds, with
   * a warning) for the next refresh, preview or up to settle: the server
   * shows nothing that tells a VM in its init script from a finished one, and
   * the bounds can be half an hour. Infinity (goPveQemu:waitForInstalls)
   * follows to the bound.
   */
  settleWaitMs: number;
  /** Bound for the server's image download, which has no timeout of its own. */
  imageDownloadBoundMs: number;
  /** Bound for the server's SSH initialisation (the init script), which has no timeout. */
  initScriptBoundMs: number;
  /** Bound for the server's `qm migrate --with-local-disks` during an install. */
  migrateBoundMs: number;
  /** Bound for one of the server's `qm` / `pvesh` commands (none has a timeout). */
  commandBoundMs: number;
  /** Bound for one of the server's waits for the VM's SSH (60 tries of 5 s + 5 s on the real server). */
  sshWaitBoundMs: number;
  /** After a successful install or start, how long the list may lag behind. */
  confirmTimeoutMs: number;
  /** After destroy, how long until the VM must be gone from the list. */
  goneTimeoutMs: number;
}

export const DEFAULT_TIMING: Timing = {
  pollIntervalMs: 2_000,
  rebootWatchIntervalMs: 500,
  shutdownTimeoutMs: 600_000,
  stopTimeoutMs: 60_000,
  followTimeoutMs: 60 * 60_000,
  settleWaitMs: 30_000,
  imageDownloadBoundMs: DEFAULT_OPEN_BOUNDS.imageDownloadMs,
  initScriptBoundMs: DEFAULT_OPEN_BOUNDS.initScriptMs,
  migrateBoundMs: DEFAULT_OPEN_BOUNDS.migrateMs,
  commandBoundMs: DEFAULT_OPEN_BOUNDS.commandMs,
  sshWaitBoundMs: DEFAULT_OPEN_BOUNDS.sshWaitMs,
  confirmTimeoutMs: 60_000,
  goneTimeoutMs: 120_000,
};

export interface LifecycleContext {
  reporter: Reporter;
  /**
   * What the operations of this process coordinate through (install gates,
   * name holds, power pace): the same object for every operation of one
   * provider process, so that they see each other.
   */
  process: ProcessScope;
  /** A client for this connection. The caller owns clients (may cache and close them); the lifecycle never closes one. */
  client(conn: ResolvedConnection): GoPveQemuApi;
  /** Stack config goPveQemu:endpoint/token, then env GO_PVE_QEMU_ENDPOINT/GO_PVE_QEMU_TOKEN, resolved by the glue. */
  connectionDefaults?: ConnectionDefaults;
  timing?: Partial<Timing>;
  signal?: AbortSignal;
  /**
   * The resource's URN, from the glue. A resource declared without `name` gets a
   * name marked for it (stackName), by which an interrupted create is found again.
   */
  urn?: string;
  /**
   * The stack's identity (the StackIdentity resource's random value, from the
   * glue): the key of the marks in names and of the install journal. Without
   * it, no VM is ever taken for this resource's interrupted create.
   */
  identity?: string;
  /** This machine's install journal; none when omitted. */
  journal?: InstallJournal;
  /** Which node each server calls its own, as this machine learned it; nothing is learned when omitted. */
  serverNodes?: ServerNodes;
  /** Time as the lifecycle sees it (deadlines, pauses between polls); the real clock when omitted. Tests inject a fake one. */
  clock?: Clock;
  /**
   * Whether a graceful shutdown that did not work may fall back to a hard
   * stop (default true; goPveQemu:allowHardStop). false: the shutdown fails
   * instead, saying why. Destroying a VM stops it hard regardless: it is going away.
   */
  allowHardStop?: boolean;
  /** How many VMs of a downtime group, and of one server, may be down at once (goPveQemu:downtimeBudgets, maxDownPerServer); none: no cap. */
  downtime?: DowntimeRules;
}

/** Where the lifecycle reads the time and waits. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects (LifecycleError "cancelled") when the signal fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const REAL_CLOCK: Clock = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

export function clockOf(ctx: Pick<LifecycleContext, "clock">): Clock {
  return ctx.clock ?? REAL_CLOCK;
}

export function timingOf(ctx: LifecycleContext): Timing {
  return { ...DEFAULT_TIMING, ...ctx.timing };
}

/** The configurable bounds of the server's steps that have no timeout of their own. */
export function openBoundsOf(ctx: LifecycleContext): OpenBounds {
  const t = timingOf(ctx);
  return {
    imageDownloadMs: t.imageDownloadBoundMs,
    initScriptMs: t.initScriptBoundMs,
    migrateMs: t.migrateBoundMs,
    commandMs: t.commandBoundMs,
    sshWaitMs: t.sshWaitBoundMs,
  };
}

/** Resolves after `ms`, or rejects when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new LifecycleError("cancelled", { code: CODES.cancelled }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new LifecycleError("cancelled", { code: CODES.cancelled }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
