// Benchmark: the operation reader against a bare eventsource-parser + JSON.parse
// loop, on the same bytes with the same chunking, and its memory on a stream
// ten times longer. Run: `npm run build && node dist/bench/stream-reader.js [--mb N] [--reps N]`.
//
// The stream is one install, as go-pve-qemu writes it: preparation steps, then
// tens of MB of `qm migrate` and init-script output (every 16th line holding
// quotes or a backslash, i.e. invalid JSON), then the final lines and close.
import { createParser } from "eventsource-parser";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { readOperation } from "../provider/client/stream/reader";

const CHUNK = 64 * 1024;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

const ev = (step: string, status: string, message: string) =>
  `data: {"step":"${step}","status":"${status}","message":"${message}"}\n\n`;

const HEAD = [
  ev("", "processing", "[*] start VM installation"),
  ev("preparation > checking VMID", "success", "[+] auto-assigned VMID: 101 (0.02s)"),
  ev("preparation > assigning IP", "success", "[+] assigned IP: 192.168.0.101/24 (0.00s)"),
  ev("preparation > validating CPU and RAM", "processing", "[*] setting CPU to maximum 8"),
  ev(
    "SSH preparation > checking SSH key",
    "error",
    "[-] failed to check user SSH key: failed to find user SSH public key",
  ),
  ev("SSH preparation > creating SSH key", "success", "[+] successfully created SSH key pair (0.31s)"),
  ev("VM creation > creating VM", "success", "[+] VM created successfully (1.92s)"),
  ev("VM initialization > migrating VM", "processing", "[*] migrate VM to node pve2"),
].join("");

const TAIL = [
  ev("VM initialization > finalizing", "success", "[+] VM is ready (0.52s)"),
  ev("VM initialization > finalizing", "success", "[+] VM installation completed in 67.83s"),
  ev("VM initialization > finalizing", "success", "[*] VMID: 101"),
  ev("VM initialization > finalizing", "success", "[*] IP: 192.168.0.101"),
  ev("VM initialization > finalizing", "success", "[*] User: deploy"),
  "event: close\ndata: {}\n\n",
].join("");

/** One block of output, about 64 KB: migration progress and init-script lines, some invalid JSON. */
function outputBlock(seed: number, broken: boolean): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < 64 * 1024; i++) {
    const n = seed * 10_000 + i;
    let line: string;
    if (broken && i % 16 === 7)
      line = ev(
        "SSH initialization",
        "processing",
        `  sed -i "s/^#\\?PermitRootLogin .*/PermitRootLogin no/" /etc/ssh/sshd_config # ${n}`,
      );
    else if (broken && i % 16 === 15)
      line = ev(
        "migrating",
        "processing",
        `  drive-scsi0: start migration to nbd:unix:/run/qemu-server/101_nbd.migrate:exportname="drive-scsi0" ${n}`,
      );
    else if (i % 2 === 0)
      line = ev(
        "migrating",
        "processing",
        `  drive-scsi0: transferred ${n % 16}.${n % 10} GiB of 16.0 GiB (${(n % 100).toFixed(2)}%) in ${n % 60}s`,
      );
    else
      line = ev(
        "SSH initialization",
        "processing",
        `  Setting up libpackage${n % 977}-common (${n % 9}.${n % 7}.${n % 5}-1ubuntu${n % 3}) ...`,
      );
    out.push(line);
    size += line.length;
  }
  return out.join("");
}

interface Stream {
  head: Buffer;
  body: Buffer;
  tail: Buffer;
}

function makeStream(mb: number, broken = true): Stream {
  const blocks: string[] = [];
  let size = 0;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const b = outputBlock(i, broken);
    blocks.push(b);
    size += b.length;
  }
  return { head: Buffer.from(HEAD), body: Buffer.from(blocks.join("")), tail: Buffer.from(TAIL) };
}

/**
 * The stream as 64 KB chunks: head, the body `repeat` times, tail. Chunks are views of the
 * same buffers, so a 10x stream costs no more memory to produce than a 1x one.
 */
async function* chunks(s: Stream, repeat: number, onChunk?: () => void): AsyncGenerator<Uint8Array> {
  yield s.head;
  for (let r = 0; r < repeat; r++) {
    for (let i = 0; i < s.body.length; i += CHUNK) {
      onChunk?.();
      yield s.body.subarray(i, i + CHUNK);
    }
  }
  yield s.tail;
}

/** (a) the floor: eventsource-parser + JSON.parse, nothing else. */
async function bare(src: AsyncIterable<Uint8Array>): Promise<number> {
  let events = 0;
  let broken = 0;
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const parser = createParser({
    onEvent: (frame) => {
      try {
        JSON.parse(frame.data);
        events++;
      } catch {
        broken++;
      }
    },
  });
  for await (const c of src) parser.feed(decoder.decode(c, { stream: true }));
  return events + broken;
}

/** (b) the reader: frames, dedup, decode (zod), install facts, outcome, tail, liveness. */
async function reader(src: AsyncIterable<Uint8Array>): Promise<number> {
  let events = 0;
  const result = await readOperation(
    "install",
    { body: src },
    { ctx: { endpoint: "POST /api/vm/install" }, idleTimeoutMs: 60_000, onEvent: () => events++ },
  );
  if (!result.facts.completed || result.warnings.length !== 1)
    throw new Error("the benchmark stream must read as a successful install");
  return events;
}

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function throughput(stream: Stream, reps: number) {
  const mb = (stream.head.length + stream.body.length + stream.tail.length) / (1024 * 1024);
  const a: number[] = [];
  const b: number[] = [];
  // warm-up: JIT both paths before measuring
  await bare(chunks(stream, 1));
  await reader(chunks(stream, 1));
  for (let r = 0; r < reps; r++) {
    // interleaved, alternating order, so drift on a shared machine hits both alike
    const order = r % 2 === 0 ? ["a", "b"] : ["b", "a"];
    for (const which of order) {
      gc();
      const t0 = performance.now();
      const n = which === "a" ? await bare(chunks(stream, 1)) : await reader(chunks(stream, 1));
      const s = (performance.now() - t0) / 1000;
      if (n < 1000) throw new Error("too few events");
      (which === "a" ? a : b).push(mb / s);
    }
  }
  return { mb, a: median(a), b: median(b), aAll: a, bAll: b };
}

/** Peak heap and RSS above the settled baseline while the reader reads `repeat` bodies. */
async function peakMemory(stream: Stream, repeat: number) {
  gc();
  gc();
  const base = process.memoryUsage();
  let peakHeap = 0;
  let peakRss = 0;
  let n = 0;
  const sample = () => {
    if (++n % 8 !== 0) return;
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed - base.heapUsed);
    peakRss = Math.max(peakRss, m.rss - base.rss);
  };
  await reader(chunks(stream, repeat, sample));
  gc();
  const after = process.memoryUsage();
  return { peakHeap, peakRss, retained: after.heapUsed - base.heapUsed };
}

const MiB = (n: number) => `${(Math.abs(n) < 52_429 ? 0 : n / (1024 * 1024)).toFixed(1)} MiB`;

async function main(): Promise<void> {
  const mb = arg("mb", 32);
  const reps = arg("reps", 7);
  const stream = makeStream(mb);
  const t = await throughput(stream, reps);
  const ratio = t.b / t.a;
  console.log(
    `stream: ${t.mb.toFixed(1)} MB, one install, ${CHUNK / 1024} KB chunks, ${reps} interleaved repetitions (median)`,
  );
  console.log(
    `(a) eventsource-parser + JSON.parse: ${t.a.toFixed(1)} MB/s  [${t.aAll.map((x) => x.toFixed(0)).join(" ")}]`,
  );
  console.log(
    `(b) operation reader:                ${t.b.toFixed(1)} MB/s  [${t.bAll.map((x) => x.toFixed(0)).join(" ")}]`,
  );
  console.log(`ratio b/a: ${ratio.toFixed(3)}`);
  // For context: the reader reads the server's template by position (zod still checks each
  // event), while the bare loop runs JSON.parse on every line and pays a thrown SyntaxError
  // on each broken one. Without broken lines the gap is smaller:
  const clean = await throughput(makeStream(Math.min(mb, 16), false), 5);
  console.log(
    `(context) same output without broken-JSON lines: (a) ${clean.a.toFixed(1)} MB/s, (b) ${clean.b.toFixed(1)} MB/s, b/a ${(clean.b / clean.a).toFixed(3)}`,
  );

  const m1 = await peakMemory(stream, 1);
  const m10 = await peakMemory(stream, 10);
  console.log(
    `memory 1x  (${t.mb.toFixed(0)} MB):  peak heap +${MiB(m1.peakHeap)}, peak RSS +${MiB(m1.peakRss)}, retained after GC ${MiB(m1.retained)}`,
  );
  console.log(
    `memory 10x (${(t.mb * 10).toFixed(0)} MB): peak heap +${MiB(m10.peakHeap)}, peak RSS +${MiB(m10.peakRss)}, retained after GC ${MiB(m10.retained)}`,
  );
  const memRatio = m10.peakHeap / Math.max(m1.peakHeap, 1);
  console.log(
    `AIM stream-reader-throughput: measured ${ratio.toFixed(2)} aim >=0.80 ${ratio >= 0.8 ? "met" : "missed"}`,
  );
  console.log(
    `AIM stream-reader-memory-flat: measured ${memRatio.toFixed(2)} aim <=1.50 ${memRatio <= 1.5 ? "met" : "missed"}`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
