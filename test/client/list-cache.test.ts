// The shared-list rules of list-cache.ts, on an injected clock and requests
// that answer when the test says so: sharing in flight and within the
// window, never across a write (started, finished or failed), fresh reads,
// signals (each caller's ends only its own read), failures, and polling loops that always see a newer list.
import { ListCache, ServerWrites, ServerWritesRegistry, shareWindowMs } from "../../provider/client/list-cache";

/** A request the test answers (or fails) by hand; `made` counts requests. */
function requests() {
  const pending: { resolve: (v: string) => void; reject: (e: Error) => void; signal?: AbortSignal }[] = [];
  let made = 0;
  return {
    get made() {
      return made;
    },
    pending,
    request: (signal?: AbortSignal): Promise<string> => {
      made++;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject, signal }));
    },
    /** Answers request number i (0-based) with `list-<i>`. */
    answer(i: number) {
      pending[i]!.resolve(`list-${i}`);
    },
  };
}

/** A write the test finishes by hand. */
function write(writes: ServerWrites) {
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = writes.around(() => new Promise<void>((res, rej) => ((finish = res), (fail = rej))));
  return { done, finish: () => (finish(), done), fail: (e: Error) => (fail(e), done.catch(() => undefined)) };
}

class Cancelled extends Error {}
const cancelled = (signal: AbortSignal): Error => new Cancelled(`cancelled: ${String(signal.reason)}`);

function setup(windowMs = 100) {
  let t = 1000;
  const writes = new ServerWrites();
  const r = requests();
  const cache = new ListCache<string>(writes, windowMs, cancelled, { now: () => t });
  return {
    writes,
    r,
    get: (opts = {}) => cache.get(opts, r.request),
    advance: (ms: number) => (t += ms),
  };
}

describe("sharing", () => {
  it("concurrent reads share one request in flight", async () => {
    const s = setup();
    const a = s.get();
    const b = s.get();
    const c = s.get();
    expect(s.r.made).toBe(1);
    s.r.answer(0);
    await expect(Promise.all([a, b, c])).resolves.toEqual(["list-0", "list-0", "list-0"]);
  });

  it("an answered list serves reads up to the window after the request started, not later", async () => {
    const s = setup(100);
    const first = s.get();
    s.r.answer(0);
    await first;
    s.advance(100);
    await expect(s.get()).resolves.toBe("list-0");
    expect(s.r.made).toBe(1);
    s.advance(1);
    const late = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(late).resolves.toBe("list-1");
  });

  it("the window counts from the request's start, so a slow list in flight is not joined once it is too old", () => {
    const s = setup(100);
    void s.get();
    s.advance(150); // still unanswered
    void s.get();
    expect(s.r.made).toBe(2);
  });

  it("a window of 0 shares nothing, not even at the same instant", () => {
    const s = setup(0);
    void s.get();
    void s.get();
    expect(s.r.made).toBe(2);
  });
});

describe("writes", () => {
  it("a write that starts invalidates the cached list", async () => {
    const s = setup();
    const first = s.get();
    s.r.answer(0);
    await first;
    const w = write(s.writes);
    const during = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(during).resolves.toBe("list-1");
    await w.finish();
  });

  it("reads during one write share a list started during it", async () => {
    const s = setup();
    const w = write(s.writes);
    const a = s.get();
    const b = s.get();
    expect(s.r.made).toBe(1);
    s.r.answer(0);
    await expect(Promise.all([a, b])).resolves.toEqual(["list-0", "list-0"]);
    await w.finish();
  });

  it("a list that started before a write finished is not served to a read that starts after it", async () => {
    const s = setup();
    const w = write(s.writes);
    const before = s.get(); // started while the write runs
    await w.finish();
    s.r.answer(0); // answers after the write, within the window
    await expect(before).resolves.toBe("list-0");
    const after = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(after).resolves.toBe("list-1");
  });

  it("a list in flight when a write starts is not joined by reads that start after the write started", () => {
    const s = setup();
    void s.get();
    const w = write(s.writes);
    void s.get();
    expect(s.r.made).toBe(2);
    void w.finish();
  });

  it("progress of a write in flight (a stream event) ends the shared answer", async () => {
    const s = setup();
    const w = write(s.writes);
    const first = s.get();
    s.r.answer(0);
    await first;
    s.writes.progressed();
    void s.get();
    expect(s.r.made).toBe(2);
    await w.finish();
  });

  it("a write that fails moves the generation too", async () => {
    const s = setup();
    const first = s.get();
    s.r.answer(0);
    await first;
    const w = write(s.writes);
    await w.fail(new Error("refused"));
    void s.get();
    expect(s.r.made).toBe(2);
  });

  it("a write's own result and error are passed through unchanged", async () => {
    const writes = new ServerWrites();
    await expect(writes.around(async () => 42)).resolves.toBe(42);
    const err = new Error("HTTP 500");
    await expect(writes.around(async () => Promise.reject(err))).rejects.toBe(err);
    expect(writes.generation).toBe(4);
  });

  it("a write through any client of a server is seen by the cache of every client of that server", () => {
    const url = `http://127.0.0.1:1/test/api`;
    const registry = new ServerWritesRegistry();
    const serverWrites = (u: string): ServerWrites => registry.of(u);
    expect(new ServerWritesRegistry().of(url)).not.toBe(serverWrites(url));
    expect(serverWrites(url)).toBe(serverWrites(url));
    expect(serverWrites(url)).not.toBe(serverWrites(`${url}/other`));
    let t = 0;
    const r = requests();
    const cache = new ListCache<string>(serverWrites(url), 100, cancelled, { now: () => t });
    void cache.get({}, r.request);
    void serverWrites(url).around(async () => undefined);
    t += 1;
    void cache.get({}, r.request);
    expect(r.made).toBe(2);
  });
});

describe("fresh, signals and failures", () => {
  it("fresh: true makes a new request, which later reads share", async () => {
    const s = setup();
    void s.get();
    const fresh = s.get({ fresh: true });
    expect(s.r.made).toBe(2);
    const later = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(Promise.all([fresh, later])).resolves.toEqual(["list-1", "list-1"]);
  });

  it("reads with signals share one request, which carries a signal of the cache's own", async () => {
    const s = setup();
    const a = new AbortController();
    const b = new AbortController();
    const first = s.get({ signal: a.signal });
    const second = s.get({ signal: b.signal });
    expect(s.r.made).toBe(1);
    const own = s.r.pending[0]!.signal!;
    expect(own).not.toBe(a.signal);
    expect(own).not.toBe(b.signal);
    s.r.answer(0);
    await expect(Promise.all([first, second])).resolves.toEqual(["list-0", "list-0"]);
  });

  it("a caller's abort ends its own read with the cancelled error; the request goes on for the others", async () => {
    const s = setup();
    const quitter = new AbortController();
    const stayer = new AbortController();
    const gone = s.get({ signal: quitter.signal });
    const kept = s.get({ signal: stayer.signal });
    const plain = s.get();
    quitter.abort("user");
    await expect(gone).rejects.toThrow(new Cancelled("cancelled: user"));
    expect(s.r.pending[0]!.signal!.aborted).toBe(false);
    s.r.answer(0);
    await expect(Promise.all([kept, plain])).resolves.toEqual(["list-0", "list-0"]);
  });

  it("once every caller has aborted, the request is aborted and the next read makes a new one", async () => {
    const s = setup();
    const a = new AbortController();
    const b = new AbortController();
    const first = s.get({ signal: a.signal });
    const second = s.get({ signal: b.signal });
    a.abort("a");
    expect(s.r.pending[0]!.signal!.aborted).toBe(false);
    b.abort("b");
    expect(s.r.pending[0]!.signal!.aborted).toBe(true);
    await expect(first).rejects.toBeInstanceOf(Cancelled);
    await expect(second).rejects.toBeInstanceOf(Cancelled);
    const next = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(next).resolves.toBe("list-1");
  });

  it("a caller without a signal keeps the request alive whatever the others do", () => {
    const s = setup();
    const a = new AbortController();
    void s.get();
    s.get({ signal: a.signal }).catch(() => undefined);
    a.abort();
    expect(s.r.pending[0]!.signal!.aborted).toBe(false);
    void s.get();
    expect(s.r.made).toBe(1);
  });

  it("an already aborted signal gets a request of its own, with that signal", () => {
    const s = setup();
    void s.get();
    const a = new AbortController();
    a.abort();
    void s.get({ signal: a.signal }).catch(() => undefined);
    expect(s.r.made).toBe(2);
    expect(s.r.pending[1]!.signal).toBe(a.signal);
  });

  it("a failed request fails every read that joined it, and is not kept", async () => {
    const s = setup();
    const a = s.get();
    const b = s.get();
    s.r.pending[0]!.reject(new Error("connection refused"));
    await expect(a).rejects.toThrow("connection refused");
    await expect(b).rejects.toThrow("connection refused");
    const next = s.get();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(next).resolves.toBe("list-1");
  });
});

describe("polling", () => {
  it("shareWindowMs is a quarter of the poll interval, at most 500 ms", () => {
    expect(shareWindowMs(2000)).toBe(500);
    expect(shareWindowMs(100_000)).toBe(500);
    expect(shareWindowMs(1000)).toBe(250);
    expect(shareWindowMs(10)).toBe(2);
    expect(shareWindowMs(3)).toBe(0);
  });

  it("every round of a poll gets a list that started after its previous round's, while another caller keeps reading", async () => {
    const poll = 400;
    let t = 0;
    const writes = new ServerWrites();
    const started: number[] = [];
    const cache = new ListCache<number>(writes, shareWindowMs(poll), cancelled, { now: () => t });
    // Every request answers at once with the time it started.
    const request = (): Promise<number> => {
      started.push(t);
      return Promise.resolve(t);
    };
    const seen: number[] = [];
    for (let round = 0; round < 20; round++) {
      // Another caller reads at varying moments between the poller's rounds...
      t += (round * 37) % poll;
      await cache.get({}, request);
      // ...and the poller reads just after it, then sleeps its interval.
      t += 1;
      seen.push(await cache.get({}, request));
      t += poll;
    }
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThan(seen[i - 1]!);
    // One request per round: the poller shared the other caller's every time.
    expect(started).toHaveLength(20);
  });
});

describe("requests that follow each other", () => {
  /** A cache whose requests follow each other (as the client's do). */
  function following(windowMs = 500) {
    let t = 1000;
    const writes = new ServerWrites();
    const r = requests();
    const cache = new ListCache<string>(writes, windowMs, cancelled, { now: () => t, followUp: true });
    return {
      writes,
      r,
      get: (opts = {}) => cache.get(opts, r.request),
      advance: (ms: number) => (t += ms),
    };
  }

  /** A write that starts and ends: no read after it may share an earlier list. */
  async function aWrite(s: ReturnType<typeof following>) {
    await s.writes.around(async () => undefined);
  }

  /** Lets the callbacks of settled requests run. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("reads that cannot share the list in flight wait for it to end, then share one new request", async () => {
    const s = following();
    const first = s.get();
    await aWrite(s);
    const a = s.get();
    await aWrite(s); // the waiting request starts after both reads began: b may join it
    const b = s.get({ fresh: true });
    expect(s.r.made).toBe(1);
    s.r.answer(0);
    await expect(first).resolves.toBe("list-0");
    await settle();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(Promise.all([a, b])).resolves.toEqual(["list-1", "list-1"]);
  });

  it("a failed request in flight releases the waiting one too", async () => {
    const s = following();
    const first = s.get();
    await aWrite(s);
    const next = s.get();
    s.r.pending[0]!.reject(new Error("connection refused"));
    await expect(first).rejects.toThrow("connection refused");
    await settle();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(next).resolves.toBe("list-1");
  });

  it("with nothing in flight, a read that cannot share starts at once", async () => {
    const s = following();
    const first = s.get();
    s.r.answer(0);
    await first;
    await aWrite(s);
    void s.get();
    expect(s.r.made).toBe(2);
  });

  it("once the waiting request has started, a read after a write waits for it in turn", async () => {
    const s = following();
    void s.get();
    await aWrite(s);
    void s.get(); // waits for request 0
    s.r.answer(0);
    await settle();
    expect(s.r.made).toBe(2);
    await aWrite(s);
    void s.get(); // cannot share request 1: waits for it
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await settle();
    expect(s.r.made).toBe(3);
  });

  it("an immediate read starts the waiting request at once, for everyone waiting, and it is not started twice", async () => {
    const s = following();
    void s.get();
    await aWrite(s);
    const waiting = s.get();
    expect(s.r.made).toBe(1);
    const now = s.get({ immediate: true });
    expect(s.r.made).toBe(2);
    s.r.answer(0); // the one it waited for ends: nothing more starts
    await settle();
    expect(s.r.made).toBe(2);
    s.r.answer(1);
    await expect(Promise.all([waiting, now])).resolves.toEqual(["list-1", "list-1"]);
  });

  it("an immediate read that cannot share starts a request of its own at once", async () => {
    const s = following();
    void s.get();
    await aWrite(s);
    void s.get({ immediate: true });
    expect(s.r.made).toBe(2);
  });

  it("when every caller of a waiting request aborts, it never starts, and the next read starts one at once", async () => {
    const s = following();
    const first = s.get();
    await aWrite(s);
    const a = new AbortController();
    const gone = s.get({ signal: a.signal });
    a.abort("user");
    await expect(gone).rejects.toBeInstanceOf(Cancelled);
    s.r.answer(0);
    await first;
    await settle();
    expect(s.r.made).toBe(1);
    await aWrite(s);
    void s.get();
    expect(s.r.made).toBe(2);
  });

  it("off (the default), a read that cannot share the list in flight makes its own request at once", async () => {
    const s = setup(500);
    void s.get();
    await s.writes.around(async () => undefined);
    void s.get();
    expect(s.r.made).toBe(2);
  });
});
