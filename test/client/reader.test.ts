// The async reader: outcome from a byte source, idle and overall limits,
// cancellation, the close grace, and errors from the caller's callbacks.
// Limits run on a fake clock that moves only between the source's pieces: they
// fire on cue, and "not yet" is checked after the event loop has settled.
import { OperationFailedError } from "../../provider/client/errors";
import { readOperation, type ByteSource } from "../../provider/client/stream/reader";
import type { OperationEvent, InstallFacts } from "../../provider/client/stream/types";
import { FakeClock, settle } from "./helpers/clock";
import { bytes, chunkEvery, fixtureText } from "./helpers/fixtures";
import { CLOSE, START_OK, ev } from "./helpers/sse";

const ctx = { endpoint: "POST /api/vm/101/start", vmid: 101 };

/**
 * A source that yields the given pieces (strings are encoded; numbers move the clock on by
 * that many ms - the reader has taken the previous piece by then), then optionally hangs.
 * `hung` resolves once the reader has taken every piece and waits for more.
 */
function scripted(
  pieces: (string | number)[],
  opts: { hang?: boolean; fail?: Error; clock?: FakeClock } = {},
): ByteSource & { cancel: jest.Mock; hung: Promise<void> } {
  let stop: (() => void) | undefined;
  let onHung: () => void = () => undefined;
  const hung = new Promise<void>((resolve) => (onHung = resolve));
  const cancel = jest.fn(() => stop?.());
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const p of pieces) {
      if (typeof p === "number") {
        if (!opts.clock) throw new Error("a pause needs a clock");
        opts.clock.advance(p);
      } else yield bytes(p);
    }
    if (opts.fail) throw opts.fail;
    // a silent server: nothing more until the connection is closed
    if (opts.hang) {
      const closed = new Promise<void>((resolve) => (stop = resolve));
      onHung();
      await closed;
    }
  }
  return { body: body(), cancel, hung };
}

/** The promise, and whether it has settled yet. */
function watch<T>(p: Promise<T>): { p: Promise<T>; settled: () => boolean } {
  let done = false;
  const q = p.finally(() => (done = true));
  q.catch(() => undefined);
  return { p: q, settled: () => done };
}

async function failureOf(p: Promise<unknown>): Promise<OperationFailedError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OperationFailedError);
    return err as OperationFailedError;
  }
  throw new Error("expected the operation to fail");
}

test("reads an install to success, reporting events and facts as they arrive", async () => {
  const text = fixtureText("install-success-auto.sse");
  const events: OperationEvent[] = [];
  const facts: InstallFacts[] = [];
  const src: ByteSource = {
    body: (async function* () {
      for (const c of chunkEvery(bytes(text), 300)) {
        await settle();
        yield c;
      }
    })(),
  };
  const result = await readOperation("install", src, {
    ctx: { endpoint: "POST /api/vm/install" },
    requestName: "web",
    onEvent: (e) => events.push(e),
    onFacts: (f) => facts.push(f),
  });
  expect(result.facts).toMatchObject({ vmid: 101, ip: "192.168.0.101", realName: "web-101", completed: true });
  expect(events.at(-1)).toEqual({ kind: "close" });
  expect(events.filter((e) => e.kind === "raw")).toHaveLength(3);
  expect(facts[0]).toMatchObject({ vmid: 101, vmCreated: false });
  expect(facts.at(-1)).toMatchObject({ completed: true });
});

test("a failed install names the VMID it learned, even though the request had none", async () => {
  const err = await failureOf(
    readOperation(
      "install",
      {
        body: (async function* () {
          yield bytes(fixtureText("install-error-vm-creation-race.sse"));
        })(),
      },
      { ctx: { endpoint: "POST /api/vm/install" } },
    ),
  );
  expect(err.vmid).toBe(105);
  expect(err.shape).toBe("error-event");
  expect(err.facts).toMatchObject({ vmid: 105, vmCreated: false });
  expect(err.message).toContain('install of VM 105 failed at step "VM creation > creating VM"');
  expect(err.message).toContain("config file already exists");
  expect(err.tail.length).toBeGreaterThan(3);
});

test("the idle limit fires on silence and closes the source", async () => {
  const clock = new FakeClock();
  const src = scripted([START_OK[0]!, START_OK[1]!], { hang: true, clock });
  const run = watch(failureOf(readOperation("start", src, { ctx, idleTimeoutMs: 150, clock })));
  await src.hung;
  clock.advance(149);
  await settle();
  expect(run.settled()).toBe(false);
  expect(src.cancel).not.toHaveBeenCalled();
  clock.advance(1);
  const err = await run.p;
  expect(err.shape).toBe("idle-timeout");
  expect(err.step).toBe("starting VM");
  expect(src.cancel).toHaveBeenCalledTimes(1);
  expect(clock.pending).toBe(0);
});

test.each([
  ["keepalive comments", ": keepalive\n\n"],
  ["heartbeat events", 'event: heartbeat\ndata: {"ts": "2026-01-24T12:00:00Z"}\n\n'],
  ["retry fields", "retry: 3000\n\n"],
])("the idle limit does not fire while %s arrive", async (_what, alive) => {
  // 12 x 60 ms = 720 ms of no events, against an idle limit of 200 ms
  const clock = new FakeClock();
  const pieces: (string | number)[] = [START_OK[0]!, START_OK[1]!];
  for (let i = 0; i < 12; i++) pieces.push(60, alive);
  pieces.push(...START_OK.slice(2));
  const src = scripted(pieces, { clock });
  const result = await readOperation("start", src, { ctx, idleTimeoutMs: 200, clock });
  expect(result.kind).toBe("start");
  expect(src.cancel).not.toHaveBeenCalled();
  // The same silence without them is too long.
  const silent = scripted([START_OK[0]!, START_OK[1]!, ...new Array<number>(12).fill(60), ...START_OK.slice(2)], {
    clock,
  });
  expect((await failureOf(readOperation("start", silent, { ctx, idleTimeoutMs: 200, clock }))).shape).toBe(
    "idle-timeout",
  );
});

test("a quiet stretch shorter than the idle limit is tolerated (the server's SSH wait); as long is not", async () => {
  const clock = new FakeClock();
  const src = scripted([START_OK[0]!, START_OK[1]!, 399, ...START_OK.slice(2)], { clock });
  await expect(readOperation("start", src, { ctx, idleTimeoutMs: 400, clock })).resolves.toMatchObject({
    kind: "start",
  });
  const late = scripted([START_OK[0]!, START_OK[1]!, 400, ...START_OK.slice(2)], { clock });
  expect((await failureOf(readOperation("start", late, { ctx, idleTimeoutMs: 400, clock }))).shape).toBe(
    "idle-timeout",
  );
});

test("the overall limit fires even while the stream stays alive", async () => {
  const clock = new FakeClock();
  const pieces: (string | number)[] = [START_OK[0]!];
  for (let i = 0; i < 40; i++) pieces.push(25, ": keepalive\n\n");
  const src = scripted(pieces, { hang: true, clock });
  const err = await failureOf(readOperation("start", src, { ctx, idleTimeoutMs: 200, overallTimeoutMs: 300, clock }));
  expect(err.shape).toBe("overall-timeout");
  // It fired at 300 ms of the clock, at the 12th pause: the source read no further.
  expect(clock.now()).toBe(300);
  expect(src.cancel).toHaveBeenCalledTimes(1);
});

test("aborting closes the source at once and reports what was seen", async () => {
  const clock = new FakeClock();
  const src = scripted([START_OK[0]!], { hang: true, clock });
  const ac = new AbortController();
  const p = readOperation("start", src, { ctx, signal: ac.signal, idleTimeoutMs: 60_000, clock });
  await src.hung;
  ac.abort(new Error("user pressed ctrl-c"));
  // Within abort() itself: no timer, no tick in between.
  expect(src.cancel).toHaveBeenCalledTimes(1);
  const err = await failureOf(p);
  expect(err.shape).toBe("aborted");
  expect(err.step).toBe("starting VM");
  expect((err.cause as Error).message).toBe("user pressed ctrl-c");
  expect(src.cancel).toHaveBeenCalledTimes(1);
  expect((src.cancel.mock.calls[0] as unknown[])[0]).toBe(ac.signal.reason);
});

test("an already aborted signal stops before reading", async () => {
  const src = scripted(START_OK);
  const err = await failureOf(readOperation("start", src, { ctx, signal: AbortSignal.abort() }));
  expect(err.shape).toBe("aborted");
  expect(src.cancel).toHaveBeenCalled();
});

test("after close the server gets a short grace to end the response; then the outcome stands", async () => {
  const clock = new FakeClock();
  const src = scripted(START_OK, { hang: true, clock });
  const run = watch(readOperation("start", src, { ctx, idleTimeoutMs: 60_000, closeGraceMs: 100, clock }));
  await src.hung;
  clock.advance(99);
  await settle();
  expect(run.settled()).toBe(false);
  expect(src.cancel).not.toHaveBeenCalled();
  clock.advance(1);
  expect((await run.p).kind).toBe("start");
  expect(src.cancel).toHaveBeenCalledTimes(1);
});

test("a source that breaks mid-stream is connection-lost, with the cause", async () => {
  const boom = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
  const err = await failureOf(readOperation("start", scripted([START_OK[0]!], { fail: boom }), { ctx }));
  expect(err.shape).toBe("connection-lost");
  expect(err.cause).toBe(boom);
});

test("a line longer than the buffer limit ends the stream as connection-lost", async () => {
  const src = scripted([START_OK[0]!, "data: " + "x".repeat(50_000)], { hang: true });
  const err = await failureOf(readOperation("start", src, { ctx, maxBufferChars: 10_000 }));
  expect(err.shape).toBe("connection-lost");
  expect(err.serverMessage).toMatch(/exceeded 10000 characters/);
  expect(src.cancel).toHaveBeenCalled();
});

test("an exception thrown by the caller's onEvent stops the stream and surfaces as is", async () => {
  const src = scripted(START_OK, { hang: true });
  const mine = new Error("callback bug");
  await expect(
    readOperation("start", src, {
      ctx,
      onEvent: () => {
        throw mine;
      },
    }),
  ).rejects.toBe(mine);
  expect(src.cancel).toHaveBeenCalled();
});

test("ids are tracked and a replayed frame is dropped", async () => {
  const pieces = [
    "id: 1\n" + START_OK[0]!,
    "id: 2\n" + START_OK[1]!,
    "id: 1\n" + START_OK[0]!,
    "id: 3\n" + START_OK[3]!,
    "id: 4\n" + CLOSE,
  ];
  const events: OperationEvent[] = [];
  const result = await readOperation("start", scripted(pieces), { ctx, onEvent: (e) => events.push(e) });
  expect(events.map((e) => e.id)).toEqual(["1", "2", "3", "4"]);
  expect(result.lastEventId).toBe("4");
});

test("an empty id resets the cursor and is not deduplicated", async () => {
  const pieces = [
    "id: 7\n" + ev("migrating", "processing", "a"),
    "id:\n" + ev("migrating", "processing", "b"),
    "id:\n" + ev("migrating", "processing", "c"),
    CLOSE,
  ];
  const events: OperationEvent[] = [];
  const result = await readOperation("migrate", scripted(pieces), { ctx, onEvent: (e) => events.push(e) });
  expect(events.filter((e) => e.kind === "step")).toHaveLength(3);
  expect(result.lastEventId).toBeUndefined();
});
