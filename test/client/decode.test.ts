// Frame -> OperationEvent, including go-pve-qemu's unescaped JSON.
import { decodeFrame } from "../../provider/client/stream/decode";

const step = (s: string, status: string, m: string) => `{"step":"${s}","status":"${status}","message":"${m}"}`;

test("a well-formed event becomes a step event, with its id", () => {
  expect(
    decodeFrame({ data: step("preparation > assigning IP", "success", "[+] assigned IP: 10.0.0.5/24 (0.00s)") }),
  ).toEqual({
    kind: "step",
    step: "preparation > assigning IP",
    status: "success",
    message: "[+] assigned IP: 10.0.0.5/24 (0.00s)",
  });
  expect(decodeFrame({ id: "9", data: step("x", "info", "y") })).toEqual({
    kind: "step",
    id: "9",
    step: "x",
    status: "info",
    message: "y",
  });
  // `event: message` is the SSE default name
  expect(decodeFrame({ event: "message", data: step("x", "error", "y") })).toMatchObject({
    kind: "step",
    status: "error",
  });
});

test("a payload that is not valid JSON is kept as raw text, and the server's template is inverted", () => {
  const text = step("SSH initialization", "processing", '  echo "hello" > /tmp/x \\ done');
  const ev = decodeFrame({ data: text });
  expect(ev).toEqual({
    kind: "raw",
    text,
    recovered: {
      kind: "step",
      step: "SSH initialization",
      status: "processing",
      message: '  echo "hello" > /tmp/x \\ done',
    },
  });
});

test("output that is no template at all stays plain raw text", () => {
  expect(decodeFrame({ data: "plain words" })).toEqual({ kind: "raw", text: "plain words" });
  expect(decodeFrame({ data: '{"broken": "json' })).toEqual({ kind: "raw", text: '{"broken": "json' });
  expect(decodeFrame({ id: "3", data: "" })).toEqual({ kind: "raw", id: "3", text: "" });
});

test("the bare refusal becomes a bare event, also when its message breaks the JSON", () => {
  expect(decodeFrame({ data: '{"message": "VM is running"}' })).toEqual({ kind: "bare", message: "VM is running" });
  expect(decodeFrame({ data: '{"message": "output: "quoted" words"}' })).toEqual({
    kind: "raw",
    text: '{"message": "output: "quoted" words"}',
    recovered: { kind: "bare", message: 'output: "quoted" words' },
  });
});

test("event: close becomes close; named events become other", () => {
  expect(decodeFrame({ event: "close", data: "{}" })).toEqual({ kind: "close" });
  expect(decodeFrame({ id: "5", event: "close", data: "{}" })).toEqual({ kind: "close", id: "5" });
  expect(decodeFrame({ event: "heartbeat", data: '{"ts": "2026-01-24T12:00:00Z"}' })).toEqual({
    kind: "other",
    event: "heartbeat",
    data: '{"ts": "2026-01-24T12:00:00Z"}',
  });
});

test("JSON of another shape is other, never a step or bare event", () => {
  expect(decodeFrame({ data: '{"event":"state","state":"running"}' })).toMatchObject({
    kind: "other",
    event: "message",
  });
  expect(decodeFrame({ data: '{"step":"x","status":"weird","message":"y"}' })).toMatchObject({ kind: "other" });
  expect(decodeFrame({ data: '{"step":"x","status":"info"}' })).toMatchObject({ kind: "other" });
  expect(decodeFrame({ data: '{"message":"x","success":false}' })).toMatchObject({ kind: "other" });
  expect(decodeFrame({ data: "[1,2]" })).toMatchObject({ kind: "other" });
  expect(decodeFrame({ data: "{}" })).toMatchObject({ kind: "other" });
});

test("seed 002 output frames are decoded from base64 or ascii", () => {
  const b64 = Buffer.from('ok "quoted" ✓\nnext').toString("base64");
  expect(decodeFrame({ id: "3", event: "stdout", data: `{"spid":1,"encoding":"base64","value":"${b64}"}` })).toEqual({
    kind: "other",
    id: "3",
    event: "stdout",
    data: `{"spid":1,"encoding":"base64","value":"${b64}"}`,
    text: 'ok "quoted" ✓\nnext',
  });
  expect(decodeFrame({ event: "stderr", data: '{"encoding":"ascii","value":"warn"}' })).toMatchObject({ text: "warn" });
  expect(decodeFrame({ event: "stdout", data: "not json" })).toEqual({
    kind: "other",
    event: "stdout",
    data: "not json",
  });
});

describe("a broken payload recovers the server's template", () => {
  /** What a payload's raw event says the server meant (undefined: no recovery). */
  const recovered = (data: string) => {
    const ev = decodeFrame({ data });
    return ev.kind === "raw" ? ev.recovered : undefined;
  };

  test("inverts the step template exactly", () => {
    expect(recovered('{"step":"migrating","status":"processing","message":"  a "b" \\c"}')).toEqual({
      kind: "step",
      step: "migrating",
      status: "processing",
      message: '  a "b" \\c',
    });
    // the message may itself contain the separators
    expect(recovered('{"step":"s","status":"error","message":"x","status":"y","message":"z"}')).toMatchObject({
      step: "s",
      status: "error",
      message: 'x","status":"y","message":"z',
    });
  });

  test("recovers a message the server cut with a line break", () => {
    expect(recovered('{"step":"starting VM via SSH","status":"error","message":"[-] failed: output: refused')).toEqual({
      kind: "step",
      step: "starting VM via SSH",
      status: "error",
      message: "[-] failed: output: refused",
    });
    expect(recovered('{"message": "failed to start VM: refused')).toEqual({
      kind: "bare",
      message: "failed to start VM: refused",
    });
  });

  test("refuses what is not the template: no event is made up", () => {
    for (const data of [
      '{"step":"s","status":"bogus","message":"x"}',
      '{"step":"s","message":"x"}',
      '{"step":"s"q","status":"info","message":"x"}',
      '  {"message": "x"}',
      "",
    ]) {
      const ev = decodeFrame({ data });
      expect(["raw", "other"]).toContain(ev.kind);
      expect(ev).not.toHaveProperty("recovered");
    }
  });
});

describe("the step template read by position agrees with JSON.parse", () => {
  // Messages built from the characters that matter: quotes, backslashes and the letters
  // of valid escapes, control characters, separators, non-ASCII.
  const ALPHABET = [
    '"',
    "\\",
    "n",
    "u",
    "0",
    "4",
    "1",
    "/",
    "t",
    "\t",
    "\u0001",
    ",",
    ":",
    "}",
    "{",
    "a",
    " ",
    "é",
    "✓",
    "💡",
    "message",
    '","status":"',
    '","message":"',
  ];
  let seed = 42;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const messages = Array.from({ length: 20_000 }, () =>
    Array.from({ length: rnd(12) }, () => ALPHABET[rnd(ALPHABET.length)]).join(""),
  );

  test("a step event is exactly what JSON.parse reads; a broken payload recovers the server's exact message", () => {
    let steps = 0;
    let raws = 0;
    for (const m of messages) {
      const payload = `{"step":"SSH initialization","status":"processing","message":"${m}"}`;
      const ev = decodeFrame({ data: payload });
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        parsed = undefined;
      }
      if (ev.kind === "step") {
        steps++;
        expect({ step: ev.step, status: ev.status, message: ev.message }).toEqual(parsed);
      } else {
        raws++;
        expect(ev.kind).toBe("raw");
        // what the server meant: its literal message, whatever JSON.parse makes of it
        if (ev.kind === "raw")
          expect(ev.recovered).toEqual({ kind: "step", step: "SSH initialization", status: "processing", message: m });
        // JSON that is valid only by accident (an unescaped quote that happens to close the
        // string) is not taken at its word; anything else that is not a step is invalid JSON
        if (parsed !== undefined) expect(m).toMatch(/"/);
      }
      // a message without quotes that JSON.parse reads is always a step event
      if (parsed !== undefined && !m.includes('"')) expect(ev.kind).toBe("step");
    }
    expect(steps).toBeGreaterThan(1000);
    expect(raws).toBeGreaterThan(1000);
  });

  test("a server that escapes properly is decoded through JSON.parse", () => {
    expect(
      decodeFrame({ data: '{"step":"s","status":"info","message":"say \\"hi\\" to C:\\\\temp \\u2713"}' }),
    ).toEqual({
      kind: "step",
      step: "s",
      status: "info",
      message: 'say "hi" to C:\\temp ✓',
    });
  });
});
