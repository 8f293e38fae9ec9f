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
  startedAt: number;
  generation: number;
  answer: Promise<T>;
  /** Aborts the shared request once no caller waits for it. */
  controller: AbortController;
  /** Callers waiting that can still abort; Infinity once one cannot (it has no signal). */
  abortable: number;
}

export interface ShareOptions {
  fresh?: boolean;
  signal?: AbortSignal;
}

export class ListCache<T> {
  private entry: Entry<T> | undefined;

  /**
   * @param cancelled the error a caller gets when its signal aborts its read
   *   (the client's own CancelledError, as from a request of its own)
   */
  constructor(
    private readonly writes: ServerWrites,
    private readonly windowMs: number,
    private readonly cancelled: (signal: AbortSignal) => Error,
    private readonly now: Clock = () => performance.now(),
  ) {}

  /** The answer of a shareable list request, or of a new one made with `request`. */
  get(opts: ShareOptions, request: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    if (this.windowMs <= 0 || opts.signal?.aborted) return request(opts.signal);
    const now = this.now();
    const e = this.entry;
    const shareable = !opts.fresh && e && e.generation === this.writes.generation && now - e.startedAt <= this.windowMs;
    return this.join(shareable ? e : this.start(now, request), opts.signal);
  }

  private start(now: number, request: (signal?: AbortSignal) => Promise<T>): Entry<T> {
    const controller = new AbortController();
    const entry: Entry<T> = {
      startedAt: now,
      generation: this.writes.generation,
      answer: request(controller.signal),
      controller,
      abortable: 0,
    };
    this.entry = entry;
    entry.answer.catch(() => this.drop(entry));
    return entry;
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
