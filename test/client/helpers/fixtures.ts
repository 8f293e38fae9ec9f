// Loading the recorded streams and feeding them, whole or in pieces, through the
// synchronous pipeline (no timers, no sockets).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OperationPipeline, type PipelineOptions } from "../../../provider/client/stream/pipeline";
import type { Outcome, StreamEnd } from "../../../provider/client/stream/verdict";
import type { InstallFacts, OperationEvent, OperationKind } from "../../../provider/client/stream/types";

const FIXTURE_DIR = join(__dirname, "..", "..", "fixtures", "streams");

export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(".sse"))
    .sort();
}

export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), "utf8");
}

export type LineEnding = "lf" | "crlf" | "cr";

/** The fixture with every LF replaced (fixtures are LF-only files). */
export function withLineEnding(text: string, ending: LineEnding): string {
  if (ending === "lf") return text;
  return text.replace(/\n/g, ending === "crlf" ? "\r\n" : "\r");
}

export function bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "utf8"));
}

/** Split at the given byte offsets. */
export function splitAt(data: Uint8Array, ...offsets: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const at of offsets) {
    out.push(data.subarray(from, at));
    from = at;
  }
  out.push(data.subarray(from));
  return out;
}

export function chunkEvery(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}

export interface PipelineRun {
  events: OperationEvent[];
  facts: InstallFacts[];
  outcome: Outcome;
  duplicates: number;
  lastEventId?: string;
}

export function runPipeline(
  kind: OperationKind,
  chunks: Iterable<Uint8Array>,
  options: Omit<PipelineOptions, "onEvent" | "onFacts"> = {},
  end: StreamEnd = { kind: "eof" },
): PipelineRun {
  const events: OperationEvent[] = [];
  const facts: InstallFacts[] = [];
  const p = new OperationPipeline(kind, { ...options, onEvent: (e) => events.push(e), onFacts: (f) => facts.push(f) });
  for (const c of chunks) p.push(c);
  const outcome = p.finish(end);
  return { events, facts, outcome, duplicates: p.duplicates, lastEventId: p.lastEventId };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
