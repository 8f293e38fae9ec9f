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
//   confirming its VM just after its own write ended), requests follow each
//   other: while one is in flight, a read that cannot share it waits for it
//   to end and then shares the next one, which starts after every read that
//   joined it began. So no read is ever served an older view; waiting costs
//   at most one list's time, and N such reads cost about one list per list
//   time instead of N. A read that must not wait (`immediate`: one made
//   while holding the install lock, which serialises installs) starts the
//   waiting request at once, or a new one.
// - A list with a per-call timeout is a request of its own: the client never
//   brings it here.
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

/**
 * The one ServerWrites of each server, by its API base URL (origin + path),
 * for the clients of one process: its owner (the provider core) hands it to
 * every client it makes. A client given none has a ServerWrites of its own.
 */
export class ServerWritesRegistry {
  private readonly servers = new Map<string, ServerWrites>();

  of(apiUrl: string): ServerWrites {
    let w = this.servers.get(apiUrl);
    if (!w) {
      w = new ServerWrites();
      this.servers.set(apiUrl, w);
    }
    return w;
  }
}

interface Entry<T> {
  /** When the request started; undefined while it waits for the one in flight. */
  startedAt: number | undefined;
  generation: number;
  answer: Promise<T>;
  /** Aborts the shared request once no caller waits for it. */
  controller: AbortController;
  /** While it waits: starts it now. */
  startNow?: () => void;
  /** Callers waiting that can still abort; Infinity once one cannot (it has no signal). */
  abortable: number;
}

export interface ShareOptions {
  fresh?: boolean;
  signal?: AbortSignal;
  /** Never wait for a request in flight. */
  immediate?: boolean;
}

export interface ListCacheOptions {
  /** The clock (tests give their own); default the system's. */
  now?: Clock;
  /** Requests follow each other (see above); off, each read that cannot share starts one at once. */
  followUp?: boolean;
}

export class ListCache<T> {
  private entry: Entry<T> | undefined;
  /** The latest request that started and has not ended. */
  private inFlight: Promise<unknown> | undefined;

  private readonly now: Clock;
  private readonly followUp: boolean;

  /**
   * @param cancelled the error a caller gets when its signal aborts its read
   *   (the client's own CancelledError, as from a request of its own)
   */
  constructor(
    private readonly writes: ServerWrites,
    private readonly windowMs: number,
    private readonly cancelled: (signal: AbortSignal) => Error,
    opts: ListCacheOptions = {},
  ) {
    this.now = opts.now ?? (() => performance.now());
    this.followUp = opts.followUp ?? false;
  }

  /** The answer of a shareable list request, or of a new one made with `request`. */
  get(opts: ShareOptions, request: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    if (this.windowMs <= 0 || opts.signal?.aborted) return request(opts.signal);
    const now = this.now();
    const e = this.entry;
    if (e && this.shareable(e, opts, now)) {
      if (opts.immediate) e.startNow?.();
      return this.join(e, opts.signal);
    }
    return this.join(this.start(request, opts.immediate === true), opts.signal);
  }

  private shareable(e: Entry<T>, opts: ShareOptions, now: number): boolean {
    // A request still waiting starts after this read began: a fresh view for anyone.
    if (e.startedAt === undefined) return true;
    return !opts.fresh && e.generation === this.writes.generation && now - e.startedAt <= this.windowMs;
  }

  private start(request: (signal?: AbortSignal) => Promise<T>, immediate: boolean): Entry<T> {
    const controller = new AbortController();
    const entry: Entry<T> = { startedAt: undefined, generation: 0, answer: undefined!, controller, abortable: 0 };
    const begin = (): Promise<T> => {
      entry.startedAt = this.now();
      entry.generation = this.writes.generation;
      const answer = request(controller.signal);
      this.inFlight = answer;
      const ended = (): void => {
        if (this.inFlight === answer) this.inFlight = undefined;
      };
      answer.then(ended, ended);
      return answer;
    };
    const busy = this.followUp && !immediate ? this.inFlight : undefined;
    // Until it starts, every read joins this one (shareable): one waits at a time.
    entry.answer = busy ? this.after(entry, busy, begin) : begin();
    this.entry = entry;
    entry.answer.catch(() => this.drop(entry));
    return entry;
  }

  /** `begin` once `busy` has ended (or at startNow), unless every caller has gone first. */
  private after(entry: Entry<T>, busy: Promise<unknown>, begin: () => Promise<T>): Promise<T> {
    const signal = entry.controller.signal;
    return new Promise<T>((resolve, reject) => {
      let waiting = true;
      const onAbort = (): void => {
        waiting = false;
        reject(signal.reason);
      };
      const run = (): void => {
        if (!waiting) return;
        waiting = false;
        entry.startNow = undefined;
        signal.removeEventListener("abort", onAbort);
        begin().then(resolve, reject);
      };
      entry.startNow = run;
      signal.addEventListener("abort", onAbort, { once: true });
      busy.then(run, run);
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
