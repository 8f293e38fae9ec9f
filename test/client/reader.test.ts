// The async reader: outcome from a byte source, idle and overall limits,
// cancellation, the close grace, and errors from the caller's callbacks.
import { OperationFailedError } from "../../provider/client/errors";
import { readOperation, type ByteSource } from "../../provider/client/stream/reader";
import type { OperationEvent, InstallFacts } from "../../provider/client/stream/types";
import { bytes, chunkEvery, fixtureText, sleep } from "./helpers/fixtures";
import { CLOSE, START_OK, ev } from "./helpers/sse";

const ctx = { endpoint: "POST /api/vm/101/start", vmid: 101 };

/** A source that yields the given pieces (strings are encoded; numbers are pauses in ms), then optionally hangs. */
function scripted(
  pieces: (string | number)[],
  opts: { hang?: boolean; fail?: Error } = {},
): ByteSource & { cancel: jest.Mock } {
  let stop: (() => void) | undefined;
  const cancel = jest.fn(() => stop?.());
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const p of pieces) {
      if (typeof p === "number") await sleep(p);
      else yield bytes(p);
    }
    if (opts.fail) throw opts.fail;
    // a silent server: nothing more until the connection is closed
    if (opts.hang) await new Promise<void>((resolve) => (stop = resolve));
  }
  return { body: body(), cancel };
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
        await sleep(0);
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
  const src = scripted([START_OK[0]!, START_OK[1]!], { hang: true });
  const t0 = performance.now();
  const err = await failureOf(readOperation("start", src, { ctx, idleTimeoutMs: 150 }));
  const took = performance.now() - t0;
  expect(err.shape).toBe("idle-timeout");
  expect(err.step).toBe("starting VM");
  expect(took).toBeGreaterThanOrEqual(140);
  expect(took).toBeLessThan(1500);
  expect(src.cancel).toHaveBeenCalledTimes(1);
});

test.each([
  ["keepalive comments", ": keepalive\n\n"],
  ["heartbeat events", 'event: heartbeat\ndata: {"ts": "2026-01-24T12:00:00Z"}\n\n'],
  ["retry fields", "retry: 3000\n\n"],
])("the idle limit does not fire while %s arrive", async (_what, alive) => {
  // 12 x 60 ms = 720 ms of no events, against an idle limit of 200 ms
  const pieces: (string | number)[] = [START_OK[0]!, START_OK[1]!];
  for (let i = 0; i < 12; i++) pieces.push(60, alive);
  pieces.push(...START_OK.slice(2));
  const src = scripted(pieces);
  const result = await readOperation("start", src, { ctx, idleTimeoutMs: 200 });
  expect(result.kind).toBe("start");
  expect(src.cancel).not.toHaveBeenCalled();
});

test("a quiet stretch shorter than the idle limit is tolerated (the server's SSH wait)", async () => {
  const src = scripted([START_OK[0]!, START_OK[1]!, 250, ...START_OK.slice(2)]);
  await expect(readOperation("start", src, { ctx, idleTimeoutMs: 400 })).resolves.toMatchObject({ kind: "start" });
});

test("the overall limit fires even while the stream stays alive", async () => {
  const pieces: (string | number)[] = [START_OK[0]!];
  for (let i = 0; i < 40; i++) pieces.push(25, ": keepalive\n\n");
  const src = scripted(pieces, { hang: true });
  const t0 = performance.now();
  const err = await failureOf(readOperation("start", src, { ctx, idleTimeoutMs: 200, overallTimeoutMs: 300 }));
  expect(err.shape).toBe("overall-timeout");
  expect(performance.now() - t0).toBeLessThan(1500);
  expect(src.cancel).toHaveBeenCalledTimes(1);
});

test("aborting closes the source at once and reports what was seen", async () => {
  const src = scripted([START_OK[0]!], { hang: true });
  const ac = new AbortController();
  const p = readOperation("start", src, { ctx, signal: ac.signal, idleTimeoutMs: 60_000 });
  await sleep(50);
  const t0 = performance.now();
  ac.abort(new Error("user pressed ctrl-c"));
  const err = await failureOf(p);
  expect(performance.now() - t0).toBeLessThan(50);
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
  const src = scripted(START_OK, { hang: true });
  const t0 = performance.now();
  const result = await readOperation("start", src, { ctx, idleTimeoutMs: 60_000, closeGraceMs: 100 });
  expect(result.kind).toBe("start");
  expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
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
