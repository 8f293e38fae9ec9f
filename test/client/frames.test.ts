// Bytes -> frames: the SSE grammar through eventsource-parser, with a streaming
// UTF-8 decoder in front. Line endings, BOM, multi-line data, comments, retry,
// very long lines, characters cut between chunks, and the buffer limit.
import { FrameReader, type Frame } from "../../provider/client/stream/frames";
import { bytes, chunkEvery, splitAt } from "./helpers/fixtures";

interface Seen {
  frames: Frame[];
  comments: string[];
  retries: number[];
  strays: string[];
  overflows: number[];
}

function read(chunks: Uint8Array[], maxBufferChars?: number): Seen {
  const seen: Seen = { frames: [], comments: [], retries: [], strays: [], overflows: [] };
  const r = new FrameReader(
    {
      onFrame: (f) => seen.frames.push(f),
      onComment: (c) => seen.comments.push(c),
      onRetry: (ms) => seen.retries.push(ms),
      onStray: (l) => seen.strays.push(l),
      onOverflow: (n) => seen.overflows.push(n),
    },
    { maxBufferChars },
  );
  for (const c of chunks) r.push(c);
  r.end();
  return seen;
}

const SAMPLE =
  'id: 7\nevent: step\ndata: {"a":1}\n\n: keepalive\n\nretry: 2500\n\ndata: first\ndata: second\n\nevent: close\ndata: {}\n\n';

test("reads id, event, data, comments and retry fields", () => {
  const seen = read([bytes(SAMPLE)]);
  expect(seen.frames).toEqual([
    { id: "7", event: "step", data: '{"a":1}' },
    { id: undefined, event: undefined, data: "first\nsecond" },
    { id: undefined, event: "close", data: "{}" },
  ]);
  expect(seen.comments).toEqual(["keepalive"]);
  expect(seen.retries).toEqual([2500]);
  expect(seen.strays).toEqual([]);
});

test.each([
  ["LF", "\n"],
  ["CRLF", "\r\n"],
  ["CR", "\r"],
])("%s line endings give the same frames at every cut", (_name, eol) => {
  const want = read([bytes(SAMPLE)]);
  const data = bytes(SAMPLE.replace(/\n/g, eol));
  for (let at = 0; at <= data.length; at++) expect(read(splitAt(data, at))).toEqual(want);
  expect(read(chunkEvery(data, 1))).toEqual(want);
});

test("mixed line endings in one stream", () => {
  const seen = read([bytes("data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r")]);
  expect(seen.frames.map((f) => f.data)).toEqual(["a\nb\nc", "d"]);
});

test("a BOM is stripped once, and only at the start", () => {
  const bom = "\uFEFF";
  expect(read([bytes(`${bom}data: x\n\n`)]).frames.map((f) => f.data)).toEqual(["x"]);
  // a second BOM is part of the stream: it makes the first line an unknown field
  const seen = read([bytes(`${bom}${bom}data: x\n\ndata: y\n\n`)]);
  expect(seen.frames.map((f) => f.data)).toEqual(["y"]);
  expect(seen.strays).toEqual([`${bom}data: x`]);
});

test("a multi-byte character cut between chunks arrives whole", () => {
  const text = 'data: {"message":"  Setting up ✓ ünïcödé 🚀 done"}\n\n';
  const data = bytes(text);
  for (let at = 0; at <= data.length; at++) {
    expect(read(splitAt(data, at)).frames[0]?.data).toBe('{"message":"  Setting up ✓ ünïcödé 🚀 done"}');
  }
});

test("a 1 MB line works, whole or cut into 64 KB and odd-sized pieces", () => {
  const payload = `{"step":"SSH initialization","status":"processing","message":"  ${"x".repeat(1024 * 1024)}"unescaped"\\tail"}`;
  const data = bytes(`data: ${payload}\n\ndata: after\n\n`);
  for (const size of [data.length, 65536, 4093]) {
    const seen = read(chunkEvery(data, size));
    expect(seen.frames).toHaveLength(2);
    expect(seen.frames[0]!.data === payload).toBe(true);
    expect(seen.frames[1]!.data).toBe("after");
  }
});

test("a line that never ends is cut off at the buffer limit, not buffered forever", () => {
  const seen = read(chunkEvery(bytes("data: " + "y".repeat(100_000)), 1000), 10_000);
  expect(seen.overflows).toEqual([10_000]);
  expect(seen.frames).toEqual([]);
});

test("a frame without its blank line at the end of input is not dispatched", () => {
  const seen = read([bytes('data: {"message": "complete"}\n\ndata: {"message": "cut off"}\n')]);
  expect(seen.frames.map((f) => f.data)).toEqual(['{"message": "complete"}']);
});

test("a line that is no SSE field is reported, not silently lost", () => {
  const seen = read([bytes('data: {"message":"a\n"}\n\nfailed to start VM: exit status 1\n\n')]);
  expect(seen.frames.map((f) => f.data)).toEqual(['{"message":"a']);
  expect(seen.strays).toEqual(['"}', "failed to start VM: exit status 1"]);
});
