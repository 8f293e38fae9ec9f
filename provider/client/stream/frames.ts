// Bytes -> SSE frames. The SSE grammar (CR / LF / CRLF line ends, a leading
// BOM, multi-line data, id/event/retry fields, comments) is eventsource-parser's
// job; this file only wires a streaming UTF-8 decoder in front of it and turns
// its callbacks into one sink interface. Lines are never split here by hand.
import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from "eventsource-parser";

export type Frame = EventSourceMessage;

export interface FrameSink {
  /** A complete frame (blank-line terminated) with at least one data line. */
  onFrame(frame: Frame): void;
  /** `: keepalive` and friends: no application event, but proof of life. */
  onComment?(comment: string): void;
  /** A `retry:` field (the reader does not reconnect; the field is liveness only). */
  onRetry?(ms: number): void;
  /**
   * A complete line that is not an SSE field (e.g. an old server version that writes a
   * plain-text error into the event stream). Reported so that it is never dropped silently.
   */
  onStray?(line: string): void;
  /** The line/frame buffer went over its limit; the stream cannot be read safely any more. */
  onOverflow?(limitChars: number): void;
}

export interface FrameReaderOptions {
  /**
   * Most characters buffered for one unfinished line or frame. Lines of several MB work; this
   * only stops a stream that never ends a line from eating the memory. Default 32 Mi chars.
   */
  maxBufferChars?: number;
}

const DEFAULT_MAX_BUFFER_CHARS = 32 * 1024 * 1024;

export class FrameReader {
  // `stream: true` keeps a multi-byte character that straddles two chunks intact.
  // `ignoreBOM` hands a leading BOM through: the parser strips exactly one, as the
  // SSE spec says; stripping here as well would eat a second one.
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private readonly parser: EventSourceParser;
  private overflowed = false;

  constructor(sink: FrameSink, options: FrameReaderOptions = {}) {
    const limit = options.maxBufferChars ?? DEFAULT_MAX_BUFFER_CHARS;
    this.parser = createParser({
      maxBufferSize: limit,
      onEvent: (frame) => sink.onFrame(frame),
      onComment: sink.onComment ? (c) => sink.onComment!(c) : undefined,
      onRetry: sink.onRetry ? (ms) => sink.onRetry!(ms) : undefined,
      onError: (err: ParseError) => {
        if (err.type === "unknown-field" && err.line !== undefined) sink.onStray?.(err.line);
        else if (err.type === "max-buffer-size-exceeded") {
          this.overflowed = true;
          sink.onOverflow?.(limit);
        }
        // invalid-retry: a malformed retry value is still a sign of life, nothing else.
      },
    });
  }

  /** True once the buffer limit was hit; further input is ignored. */
  get failed(): boolean {
    return this.overflowed;
  }

  push(bytes: Uint8Array): void {
    if (this.overflowed) return;
    const text = this.decoder.decode(bytes, { stream: true });
    if (text.length > 0) this.parser.feed(text);
  }

  /**
   * End of input. A trailing frame without its blank line is incomplete and, as the SSE
   * spec says, not dispatched: the connection broke inside it (so its id never becomes the resume cursor).
   */
  end(): void {
    if (this.overflowed) return;
    const rest = this.decoder.decode();
    if (rest.length > 0) this.parser.feed(rest);
  }
}
