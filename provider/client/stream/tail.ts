// A bounded record of the last lines of output, for error reports.
//
// Streams can run for an hour and print megabytes of init-script output, so
// nothing here grows with the stream: a fixed ring of slots, each line cut to
// a fixed length. A cut line is copied so that it does not keep a huge parent
// string (a 1 MB line, or a whole 64 KB network chunk) alive through V8's
// sliced-string representation.

const DEFAULT_TAIL_LINES = 20;
const DEFAULT_TAIL_LINE_CHARS = 4096;

export class Tail {
  private readonly slots: string[];
  private next = 0;
  private count = 0;

  constructor(
    readonly maxLines: number = DEFAULT_TAIL_LINES,
    readonly maxLineChars: number = DEFAULT_TAIL_LINE_CHARS,
  ) {
    if (!(maxLines >= 1) || !(maxLineChars >= 16)) throw new RangeError("tail needs at least 1 line of 16 chars");
    this.slots = new Array<string>(maxLines).fill("");
  }

  push(line: string): void {
    this.slots[this.next] = line.length > this.maxLineChars ? cut(line, this.maxLineChars) : line;
    this.next = (this.next + 1) % this.maxLines;
    if (this.count < this.maxLines) this.count++;
  }

  /** Oldest first. */
  lines(): string[] {
    const out: string[] = [];
    const start = (this.next - this.count + this.maxLines) % this.maxLines;
    for (let i = 0; i < this.count; i++) out.push(this.slots[(start + i) % this.maxLines]!);
    return out;
  }

  /** Newest first, without copying everything: for "find the last line that says X". */
  *newestFirst(): Generator<string> {
    for (let i = 1; i <= this.count; i++) yield this.slots[(this.next - i + this.maxLines) % this.maxLines]!;
  }
}

function cut(line: string, max: number): string {
  const omitted = line.length - max;
  // Buffer round trip = a real copy, not a slice that pins the long original.
  const head = Buffer.from(line.slice(0, max), "utf8").toString("utf8");
  return `${head}… [${omitted} more chars]`;
}
