// JSON the way Go's encoding/json reads and writes it, for byte-faithful
// error texts ("invalid character 'x' looking for beginning of value",
// "unexpected EOF", "EOF") and output (HTML-safe escapes, as gin's c.JSON).
// Only what the server's request bodies need: one value, decoded like
// json.Decoder.Decode (trailing bytes after the first value are not read).

export type GoValue =
  | { kind: "object"; entries: Array<[string, GoValue]> }
  | { kind: "array"; items: GoValue[] }
  | { kind: "string"; value: string }
  | { kind: "number"; raw: string }
  | { kind: "bool"; value: boolean }
  | { kind: "null" };

export type Decoded = { ok: true; value: GoValue } | { ok: false; error: string };

class SyntaxFail extends Error {}

/** Go's quoteChar: how a byte is shown in a syntax error. */
function quoteChar(ch: string): string {
  if (ch === "'") return `'\\''`;
  if (ch === '"') return `'"'`;
  const code = ch.codePointAt(0) ?? 0;
  // The scanner works on bytes: a non-ASCII character shows as its first
  // UTF-8 byte, read as a rune.
  const byte = code < 0x80 ? code : (Buffer.from(ch, "utf8")[0] ?? 0);
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };
  let shown: string;
  if (named[byte] !== undefined) shown = named[byte];
  else if (byte === 0x5c) shown = "\\\\";
  else if (byte < 0x20 || byte === 0x7f) shown = `\\x${byte.toString(16).padStart(2, "0")}`;
  else if (byte >= 0x80 && byte < 0xa0) shown = `\\u00${byte.toString(16).padStart(2, "0")}`;
  else if (byte === 0xad) shown = "\\u00ad";
  else shown = String.fromCharCode(byte);
  return `'${shown}'`;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    while (this.i < this.s.length && " \t\n\r".includes(this.s[this.i] as string)) this.i++;
  }

  private peek(): string | undefined {
    return this.s[this.i];
  }

  /** A character where one was needed but the input ended: Decoder says unexpected EOF. */
  private need(): string {
    const c = this.peek();
    if (c === undefined) throw new SyntaxFail("unexpected EOF");
    return c;
  }

  private bad(c: string, context: string): never {
    throw new SyntaxFail(`invalid character ${quoteChar(c)} ${context}`);
  }

  top(): GoValue {
    this.ws();
    if (this.peek() === undefined) throw new SyntaxFail("EOF");
    return this.value();
  }

  private value(): GoValue {
    this.ws();
    const c = this.need();
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return { kind: "string", value: this.string() };
    if (c === "-" || (c >= "0" && c <= "9")) return { kind: "number", raw: this.number() };
    if (c === "t") return this.literal("true", { kind: "bool", value: true });
    if (c === "f") return this.literal("false", { kind: "bool", value: false });
    if (c === "n") return this.literal("null", { kind: "null" });
    return this.bad(c, "looking for beginning of value");
  }

  private object(): GoValue {
    this.i++;
    const entries: Array<[string, GoValue]> = [];
    this.ws();
    if (this.need() === "}") {
      this.i++;
      return { kind: "object", entries };
    }
    for (;;) {
      this.ws();
      const k = this.need();
      if (k !== '"') this.bad(k, "looking for beginning of object key string");
      const key = this.string();
      this.ws();
      const colon = this.need();
      if (colon !== ":") this.bad(colon, "after object key");
      this.i++;
      entries.push([key, this.value()]);
      this.ws();
      const next = this.need();
      this.i++;
      if (next === "}") return { kind: "object", entries };
      if (next !== ",") this.bad(next, "after object key:value pair");
    }
  }

  private array(): GoValue {
    this.i++;
    const items: GoValue[] = [];
    this.ws();
    if (this.need() === "]") {
      this.i++;
      return { kind: "array", items };
    }
    for (;;) {
      items.push(this.value());
      this.ws();
      const next = this.need();
      this.i++;
      if (next === "]") return { kind: "array", items };
      if (next !== ",") this.bad(next, "after array element");
    }
  }

  private string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.need();
      if (c === '"') {
        this.i++;
        return JSON.parse(this.s.slice(start, this.i)) as string;
      }
      if (c < " ") this.bad(c, "in string literal");
      if (c === "\\") {
        this.i++;
        const e = this.need();
        if (e === "u") {
          for (let k = 1; k <= 4; k++) {
            const h = this.s[this.i + k];
            if (h === undefined) throw new SyntaxFail("unexpected EOF");
            if (!/[0-9a-fA-F]/.test(h)) {
              this.i += k;
              this.bad(h, "in \\u hexadecimal character escape");
            }
          }
          this.i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) this.bad(e, "in string escape code");
      }
      this.i++;
    }
  }

  private number(): string {
    const start = this.i;
    const digit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
    if (this.peek() === "-") {
      this.i++;
      const c = this.peek();
      if (c === undefined) throw new SyntaxFail("unexpected EOF");
      if (!digit(c)) this.bad(c, "in numeric literal");
    }
    if (this.peek() === "0") this.i++;
    else while (digit(this.peek())) this.i++;
    if (this.peek() === ".") {
      this.i++;
      const c = this.peek();
      if (c === undefined) throw new SyntaxFail("unexpected EOF");
      if (!digit(c)) this.bad(c, "after decimal point in numeric literal");
      while (digit(this.peek())) this.i++;
    }
    if (this.peek() === "e" || this.peek() === "E") {
      this.i++;
      if (this.peek() === "+" || this.peek() === "-") this.i++;
      const c = this.peek();
      if (c === undefined) throw new SyntaxFail("unexpected EOF");
      if (!digit(c)) this.bad(c, "in exponent of numeric literal");
      while (digit(this.peek())) this.i++;
    }
    return this.s.slice(start, this.i);
  }

  private literal(word: string, value: GoValue): GoValue {
    for (let k = 0; k < word.length; k++) {
      const c = this.s[this.i + k];
      if (c === undefined) throw new SyntaxFail("unexpected EOF");
      if (c !== word[k]) {
        this.i += k;
        this.bad(c, `in literal ${word} (expecting ${quoteChar(word[k] as string)})`);
      }
    }
    this.i += word.length;
    return value;
  }
}

/** Reads the first JSON value of `text` as json.Decoder.Decode would. */
export function decodeGo(text: string): Decoded {
  try {
    return { ok: true, value: new Parser(text).top() };
  } catch (err) {
    if (err instanceof SyntaxFail) return { ok: false, error: err.message };
    throw err;
  }
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;

/** Go's json.Marshal of a string: JSON escapes plus <, >, & and U+2028/9 as \u escapes. */
function goJsonString(s: string): string {
  const plain = JSON.stringify(s);
  // Most strings (every key, most values) need none of Go's extra escapes.
  if (!GO_ESCAPED.test(plain)) return plain;
  return plain
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Go's json.Marshal of a value made of plain objects (keys in the order given). */
export function goJson(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${value}`);
    return String(value);
  }
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`);
    return `{${parts.join(",")}}`;
  }
  throw new Error(`cannot encode ${typeof value}`);
}
