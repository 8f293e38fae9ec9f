// Shared `list` answers within one process. A refresh of N VMs reads the
// same server N times at nearly the same moment (each VM's read lists the
// whole server); one answer can serve them all. The rules:
//
// - A read may be served by a list request that started at most `windowMs`
//   before it (in flight or answered): no read gets an older view than that.
//   A window much shorter than the poll interval keeps polling loops fresh:
//   each round of a poll starts a full interval after the last, so it always
//   sees a list that started after its previous round (see shareWindowMs).
// - Any write to the server (every command and operation stream) moves the
//   server's generation when it starts and again when it ends, however it
//   ends; so does every event of an operation stream (the VM an install makes
//   appears in the list mid-stream). A list is shared only within the
//   generation in which it started: a list that started before a write
//   finished never serves a read that starts after it, and no read shares a
//   list across the start of a write.
// - Under a stream of reads that cannot share (a fleet of installs, each
//   confirming its VM just after its own write ended), new requests are
//   paced: at most one starts per `paceMs`, and a read that finds the next
//   one waiting joins it. A waiting request starts after every read that
//   joined it began, so pacing never serves an older view; it only adds up
//   to `paceMs` before the answer. A read that must not wait (`immediate`:
//   one made while holding the install lock, which serialises installs)
//   starts the waiting request at once, or a new one.
// - A list with a per-call timeout is a request of its own (client.ts).
// - `fresh: true` asks for a new request (which later reads may then share).
// - A window of 0 shares nothing: every call makes its own request.
// - A caller's abort signal ends that caller's read only (with the error the
//   caller's own request would have given); the shared request goes on for
//   the others. Once every caller of a request has aborted, the request is
//   aborted too and no later read joins it.
// - A failed request is not kept: the next read asks again. Reads that had
//   joined it get its error, as they would have from their own.

/** Milliseconds on a monotonic clock; injected by tests. */
export type Clock = () => number;

/** Runs `run` after `ms` milliseconds and returns what cancels it; injected by tests. */
type Schedule = (ms: number, run: () => void) => () => void;

const timer: Schedule = (ms, run) => {
  const t = setTimeout(run, ms);
  return () => clearTimeout(t);
};

/** The longest window, whatever the poll interval. */
const MAX_SHARE_WINDOW_MS = 500;

/**
 * The window for a caller that polls every `pollIntervalMs`: a quarter of
 * the interval, at most MAX_SHARE_WINDOW_MS. A poll round then always gets a
 * list that started at least three quarters of an interval after its last
 * round's list.
 */
export function shareWindowMs(pollIntervalMs: number): number {
  return Math.max(0, Math.min(MAX_SHARE_WINDOW_MS, Math.floor(pollIntervalMs / 4)));
}

/** The longest pace, whatever the window. */
const MAX_PACE_MS = 100;

/**
 * The pace for a share window of `windowMs`: at most one new list per 100 ms
 * (a poll interval is seconds; a confirm after a minutes-long install does
 * not notice), never longer than the window itself.
 */
export function sharePaceMs(windowMs: number): number {
  return Math.max(0, Math.min(MAX_PACE_MS, windowMs));
}

/**
 * The writes in flight to one server, as a generation number that moves when
 * any write starts and when it ends. Shared by every client of that server in
 * the process (clients with other credentials have caches of their own, but a
 * write through any of them changes what all of them would list).
 */
export class ServerWrites {
  private gen = 0;

  get generation(): number {
    return this.gen;
  }

  /** The server reported progress of a write in flight (an event of an operation stream). */
  progressed(): void {
    this.gen++;
  }

  /** Runs a write: the generation moves before it starts and after it settles. */
  async around<T>(write: () => Promise<T>): Promise<T> {
    this.gen++;
    try {
      return await write();
    } finally {
      this.gen++;
    }
  }
}

const servers = new Map<string, ServerWrites>();

/** The one ServerWrites of a server, by its API base URL (origin + path). */
export function serverWrites(apiUrl: string): ServerWrites {
  let w = servers.get(apiUrl);
  if (!w) {
    w = new ServerWrites();
    servers.set(apiUrl, w);
  }
  return w;
}

interface Entry<T> {
  /** When the request started; undefined while a paced request waits its turn. */
  startedAt: number | undefined;
  generation: number;
  answer: Promise<T>;
  /** Aborts the shared request once no caller waits for it. */
  controller: AbortController;
  /** While a paced request waits: starts it now. */
  startNow?: () => void;
  /** Callers waiting that can still abort; Infinity once one cannot (it has no signal). */
  abortable: number;
}

export interface ShareOptions {
  fresh?: boolean;
  signal?: AbortSignal;
  /** Never wait for the pace. */
  immediate?: boolean;
}

export interface Pace {
  /** At most one new request per this many ms (0: no pacing). */
  ms: number;
  schedule?: Schedule;
}

export class ListCache<T> {
  private entry: Entry<T> | undefined;
  /** When the latest request started. */
  private lastStart: number | undefined;

  /**
   * @param cancelled the error a caller gets when its signal aborts its read
   *   (the client's own CancelledError, as from a request of its own)
   */
  constructor(
    private readonly writes: ServerWrites,
    private readonly windowMs: number,
    private readonly cancelled: (signal: AbortSignal) => Error,
    private readonly now: Clock = () => performance.now(),
    private readonly pace: Pace = { ms: 0 },
  ) {}

  /** The answer of a shareable list request, or of a new one made with `request`. */
  get(opts: ShareOptions, request: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    if (this.windowMs <= 0 || opts.signal?.aborted) return request(opts.signal);
    const now = this.now();
    const e = this.entry;
    if (e && this.shareable(e, opts, now)) {
      if (opts.immediate) e.startNow?.();
      return this.join(e, opts.signal);
    }
    return this.join(this.start(now, request, opts.immediate === true), opts.signal);
  }

  private shareable(e: Entry<T>, opts: ShareOptions, now: number): boolean {
    // A request still waiting starts after this read began: a fresh view for anyone.
    if (e.startedAt === undefined) return true;
    return !opts.fresh && e.generation === this.writes.generation && now - e.startedAt <= this.windowMs;
  }

  private start(now: number, request: (signal?: AbortSignal) => Promise<T>, immediate: boolean): Entry<T> {
    const controller = new AbortController();
    const entry: Entry<T> = { startedAt: undefined, generation: 0, answer: undefined!, controller, abortable: 0 };
    const begin = (): Promise<T> => {
      entry.startedAt = this.now();
      entry.generation = this.writes.generation;
      this.lastStart = entry.startedAt;
      return request(controller.signal);
    };
    const wait = this.lastStart === undefined || immediate ? 0 : this.lastStart + this.pace.ms - now;
    if (wait > 0) {
      // Until it starts, every read joins this one (shareable): one waits at a time.
      entry.answer = this.later(entry, wait, begin);
    } else {
      entry.answer = begin();
    }
    this.entry = entry;
    entry.answer.catch(() => this.drop(entry));
    return entry;
  }

  /** `begin` after `ms` (or at startNow), unless every caller has gone first. */
  private later(entry: Entry<T>, ms: number, begin: () => Promise<T>): Promise<T> {
    const signal = entry.controller.signal;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        cancel();
        reject(signal.reason);
      };
      const run = (): void => {
        cancel();
        entry.startNow = undefined;
        signal.removeEventListener("abort", onAbort);
        begin().then(resolve, reject);
      };
      const cancel = (this.pace.schedule ?? timer)(ms, run);
      entry.startNow = run;
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  private join(entry: Entry<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) {
      entry.abortable = Infinity;
      return entry.answer;
    }
    entry.abortable++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(this.cancelled(signal));
        if (--entry.abortable === 0) {
          this.drop(entry);
          entry.controller.abort(signal.reason);
        }
      };
      signal.addEventListener("abort", onAbort, { once: true });
      entry.answer.then(
        (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      );
    });
  }

  private drop(entry: Entry<T>): void {
    if (this.entry === entry) this.entry = undefined;
  }
}
