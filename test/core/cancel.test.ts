// The provider process's cancellation rules, with the process's sources
// (signals, stdin, parent, timers, exit) replaced by a fake: the first sign
// of a cancelled deployment aborts every operation, and the process exits
// once the operations in flight have answered, or when the grace period ends.
import { dynamicHostCancelWatch, watchCancel, type CancelSources } from "../../provider/core";

function fakeSources(stdinIsPipe = true) {
  const handlers: Record<string, (() => void)[]> = { SIGINT: [], SIGTERM: [], stdin: [] };
  const tickers: (() => void)[] = [];
  const timers: { ms: number; f: () => void }[] = [];
  const exits: string[] = [];
  let ppid = 100;
  const sources: CancelSources = {
    onSignal: (sig, h) => {
      handlers[sig]!.push(h);
      return () => (handlers[sig] = handlers[sig]!.filter((x) => x !== h));
    },
    onStdinEnd: (h) => {
      if (!stdinIsPipe) return undefined;
      handlers.stdin!.push(h);
      return () => (handlers.stdin = []);
    },
    ppid: () => ppid,
    every: (_ms, f) => {
      tickers.push(f);
      return () => tickers.splice(tickers.indexOf(f), 1);
    },
    after: (ms, f) => timers.push({ ms, f }),
    exit: (how) => exits.push(how),
  };
  return {
    sources,
    exits,
    timers,
    fire: (what: "SIGINT" | "SIGTERM" | "stdin") => handlers[what]!.forEach((h) => h()),
    reparent: (to: number) => {
      ppid = to;
      tickers.forEach((t) => t());
    },
    listeners: () => handlers.SIGINT!.length + handlers.SIGTERM!.length + handlers.stdin!.length + tickers.length,
  };
}

/** A promise settled from outside. */
function pending<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test("SIGINT while nothing runs (the engine closing an idle provider) exits at once, by the signal", () => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  expect(w.signal.aborted).toBe(false);
  f.fire("SIGINT");
  expect(w.signal.aborted).toBe(true);
  expect(f.exits).toEqual(["SIGINT"]);
  // The handlers are gone, so a re-raised signal takes its default course.
  expect(f.listeners()).toBe(0);
});

test("SIGINT during an operation aborts it and exits only once it has answered", async () => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  const op = pending<string>();
  const tracked = w.track(op.promise);
  f.fire("SIGINT");
  expect(w.signal.aborted).toBe(true);
  expect(String((w.signal.reason as Error).message)).toMatch(/second Ctrl-C/);
  expect(f.exits).toEqual([]);
  op.resolve("partial state");
  await expect(tracked).resolves.toBe("partial state");
  expect(f.exits).toEqual(["SIGINT"]);
});

test("an operation that does not answer within the grace period does not hold the exit", () => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  void w.track(new Promise(() => undefined));
  f.fire("SIGTERM");
  expect(f.exits).toEqual([]);
  expect(f.timers.map((t) => t.ms)).toEqual([3_000]); // the grace period
  f.timers[0]!.f();
  expect(f.exits).toEqual(["SIGTERM"]);
});

test.each([
  ["stdin, the engine's pipe, ends", (f: ReturnType<typeof fakeSources>) => f.fire("stdin")],
  ["the parent process changes", (f: ReturnType<typeof fakeSources>) => f.reparent(1)],
])("pulumi killed (%s): operations abort and the process exits after they answer", async (_what, kill) => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  const op = pending<void>();
  const tracked = w.track(op.promise);
  kill(f);
  expect(w.signal.aborted).toBe(true);
  expect(String((w.signal.reason as Error).message)).toMatch(/pulumi is gone/);
  op.resolve();
  await tracked;
  expect(f.exits).toEqual(["parent gone"]);
});

test("the same parent polled again is no cancel; a stdin that is no pipe is not watched", () => {
  const f = fakeSources(false);
  const w = watchCancel(f.sources);
  f.reparent(100);
  f.fire("stdin");
  expect(w.signal.aborted).toBe(false);
  expect(f.exits).toEqual([]);
});

test("many signs of one cancel exit once", async () => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  const op = pending<void>();
  const tracked = w.track(op.promise);
  f.fire("SIGINT");
  f.fire("stdin");
  f.reparent(1);
  op.resolve();
  await tracked;
  f.timers.forEach((t) => t.f());
  expect(f.exits).toEqual(["SIGINT"]);
});

test("a failing operation counts as answered", async () => {
  const f = fakeSources();
  const w = watchCancel(f.sources);
  const tracked = w.track(Promise.reject(new Error("partial")));
  f.fire("SIGINT");
  await expect(tracked).rejects.toThrow("partial");
  expect(f.exits).toEqual(["SIGINT"]);
});

test("only Pulumi's dynamic provider host watches; any other process (this test runner) does not", () => {
  expect(dynamicHostCancelWatch(["node", "/x/node_modules/jest/bin/jest.js"])).toBeUndefined();
});
