// poll and waitFor on a virtual clock: the rounds, deadlines, tolerated
// errors and cancellation are asserted exactly, with no wall time involved.
import type { LifecycleContext } from "../../provider/lifecycle";
import { poll, waitFor } from "../../provider/lifecycle/core/poll";
import { VirtualClock } from "./clock";
import { ProcessScope } from "../../provider/lifecycle";

function ctxOf(clock: VirtualClock, signal?: AbortSignal): LifecycleContext {
  const nothing = (): void => undefined;
  return {
    process: new ProcessScope(),
    reporter: { info: nothing, warn: nothing, debug: nothing },
    client: () => {
      throw new Error("no client in this test");
    },
    timing: { pollIntervalMs: 10 },
    clock,
    signal,
  };
}

/** A probe that answers from a script, one item per call; an Error item is thrown. */
function scripted<T>(clock: VirtualClock, items: Array<T | Error>) {
  const at: number[] = [];
  let i = 0;
  const probe = async (): Promise<T> => {
    at.push(clock.elapsed());
    const item = items[Math.min(i++, items.length - 1)]!;
    if (item instanceof Error) throw item;
    return item;
  };
  return { probe, at };
}

describe("poll", () => {
  test("asks until the answer is the one waited for, one interval apart", async () => {
    const clock = new VirtualClock();
    const s = scripted(clock, ["running", "running", "stopped"]);
    const r = await poll(ctxOf(clock), { probe: s.probe, done: (w) => w === "stopped", timeoutMs: 1000 });
    expect(r).toEqual({ reached: true, value: "stopped", rounds: 3, elapsedMs: 20 });
    expect(s.at).toEqual([0, 10, 20]);
  });

  test("gives up at the deadline with the last answer; the last pause is cut to the deadline", async () => {
    const clock = new VirtualClock();
    const s = scripted(clock, ["running"]);
    const r = await poll(ctxOf(clock), { probe: s.probe, done: (w) => w === "stopped", timeoutMs: 35 });
    expect(r).toEqual({ reached: false, last: "running", lastError: undefined, rounds: 5, elapsedMs: 35 });
    expect(s.at).toEqual([0, 10, 20, 30, 35]);
  });

  test("errors are tolerated until the deadline: the last answer and the final round's error are kept", async () => {
    const clock = new VirtualClock();
    const busy = new Error("500 busy");
    const s = scripted<string>(clock, ["running", busy]);
    const rounds: Array<{ round: number; value?: string; error?: unknown }> = [];
    const r = await poll(ctxOf(clock), {
      probe: s.probe,
      done: (w) => w === "stopped",
      timeoutMs: 20,
      onRound: ({ round, value, error }) => rounds.push({ round, value, error }),
    });
    expect(r).toMatchObject({ reached: false, last: "running", lastError: busy, rounds: 3 });
    expect(rounds).toEqual([
      { round: 1, value: "running", error: undefined },
      { round: 2, value: undefined, error: busy },
    ]);
  });

  test("an error recovers: a later answer still ends the wait", async () => {
    const clock = new VirtualClock();
    const s = scripted<string>(clock, [new Error("refused"), new Error("refused"), "stopped"]);
    const r = await poll(ctxOf(clock), { probe: s.probe, done: (w) => w === "stopped", timeoutMs: 1000 });
    expect(r).toMatchObject({ reached: true, value: "stopped", rounds: 3 });
  });

  test("a fatal error ends the wait at once and is rethrown", async () => {
    const clock = new VirtualClock();
    const definite = new Error("403 not allowed");
    const s = scripted<string>(clock, [new Error("hiccup"), definite, "stopped"]);
    await expect(
      poll(ctxOf(clock), {
        probe: s.probe,
        done: (w) => w === "stopped",
        timeoutMs: 1000,
        fatal: (e) => e === definite,
      }),
    ).rejects.toBe(definite);
    expect(s.at).toEqual([0, 10]);
  });

  test("at least one probe, even with no time at all", async () => {
    const clock = new VirtualClock();
    const s = scripted(clock, ["stopped"]);
    expect(await poll(ctxOf(clock), { probe: s.probe, done: (w) => w === "stopped", timeoutMs: 0 })).toMatchObject({
      reached: true,
      rounds: 1,
    });
  });

  test("a cancellation during a pause is rethrown, not taken for a timeout", async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    let calls = 0;
    const probe = async (): Promise<string> => {
      if (++calls === 2) ac.abort();
      return "running";
    };
    await expect(
      poll(ctxOf(clock, ac.signal), { probe, done: (w) => w === "stopped", timeoutMs: 1000 }),
    ).rejects.toMatchObject({ message: "cancelled", code: "GPQ_CANCELLED" });
    expect(calls).toBe(2);
  });

  test("a probe that fails because of the cancellation: its own error is rethrown, never swallowed", async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    const cancelled = new Error("GET /api/vm/list was cancelled");
    const probe = async (): Promise<string> => {
      ac.abort();
      throw cancelled;
    };
    await expect(poll(ctxOf(clock, ac.signal), { probe, done: () => true, timeoutMs: 1000 })).rejects.toBe(cancelled);
  });

  test("already cancelled: no probe at all", async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    ac.abort();
    const s = scripted(clock, ["stopped"]);
    await expect(poll(ctxOf(clock, ac.signal), { probe: s.probe, done: () => true, timeoutMs: 10 })).rejects.toThrow(
      "cancelled",
    );
    expect(s.at).toEqual([]);
  });
});

describe("waitFor", () => {
  test("a slow answer within the time: a tick every period while waiting, then the value", async () => {
    const clock = new VirtualClock();
    const ticks: number[] = [];
    const work = clock.after(75_000).then(() => "ok");
    const r = await waitFor(ctxOf(clock), work, {
      timeoutMs: 600_000,
      tickMs: 30_000,
      onTick: (ms) => ticks.push(ms),
    });
    expect(r).toEqual({ settled: true, value: "ok", elapsedMs: 75_000 });
    expect(ticks).toEqual([30_000, 60_000]);
  });

  test("timers that fire late (a busy machine): each tick still says the time it marks", async () => {
    class LateClock extends VirtualClock {
      override sleep(ms: number, signal?: AbortSignal): Promise<void> {
        return super.sleep(ms + 700, signal);
      }
    }
    const clock = new LateClock();
    const ticks: number[] = [];
    const work = clock.after(75_000).then(() => "ok");
    await waitFor(ctxOf(clock), work, { timeoutMs: 600_000, tickMs: 30_000, onTick: (ms) => ticks.push(ms) });
    expect(ticks).toEqual([30_000, 60_000]);
  });

  test("an answer due at the same moment as a tick wins over the tick", async () => {
    const clock = new VirtualClock();
    const ticks: number[] = [];
    const work = clock.after(60_000).then(() => "ok");
    await waitFor(ctxOf(clock), work, { timeoutMs: 600_000, tickMs: 30_000, onTick: (ms) => ticks.push(ms) });
    expect(ticks).toEqual([30_000]);
  });

  test("no answer within the time: settled false exactly at the deadline, no tick at the deadline", async () => {
    const clock = new VirtualClock();
    const ticks: number[] = [];
    const never = new Promise<string>(() => undefined);
    const r = await waitFor(ctxOf(clock), never, {
      timeoutMs: 90_000,
      tickMs: 30_000,
      onTick: (ms) => ticks.push(ms),
    });
    expect(r).toEqual({ settled: false, elapsedMs: 90_000 });
    expect(ticks).toEqual([30_000, 60_000]);
  });

  test("the work's error is the wait's error", async () => {
    const clock = new VirtualClock();
    const boom = new Error("500 failed to shutdown VM");
    const work = clock.after(5_000).then(() => Promise.reject(boom));
    await expect(waitFor(ctxOf(clock), work, { timeoutMs: 60_000 })).rejects.toBe(boom);
  });

  test("a cancellation ends the wait at once", async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    void clock.after(40_000).then(() => ac.abort());
    const never = new Promise<string>(() => undefined);
    await expect(waitFor(ctxOf(clock, ac.signal), never, { timeoutMs: 600_000, tickMs: 30_000 })).rejects.toThrow(
      "cancelled",
    );
    expect(clock.elapsed()).toBe(40_000);
  });
});
