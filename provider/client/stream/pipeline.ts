// The synchronous core of the reader: bytes in, decided outcome out.
//   bytes -> FrameReader (UTF-8 + eventsource-parser) -> id dedup -> decodeFrame
//         -> OperationOutcome (+ install facts, tail) -> caller's onEvent
// No timers and no I/O here, so it can be fed a recorded stream split at any
// byte offset; the reader adds the network, timeouts and cancellation.
import { IdWindow } from "./dedup";
import { decodeFrame } from "./decode";
import { FrameReader, type Frame } from "./frames";
import { OperationOutcome, type OutcomeOptions } from "./outcome";
import type { OperationEvent, OperationKind } from "./types";
import type { Outcome, StreamEnd } from "./verdict";

export interface PipelineOptions extends OutcomeOptions {
  onEvent?: (event: OperationEvent) => void;
  maxBufferChars?: number;
  dedupWindow?: number;
}

export class OperationPipeline {
  readonly outcome: OperationOutcome;
  private readonly frames: FrameReader;
  private ids: IdWindow | undefined;
  private brokenDetail: string | undefined;
  private readonly onEvent?: (event: OperationEvent) => void;
  private readonly dedupWindow?: number;
  /** frames dropped because their id was already seen */
  duplicates = 0;

  constructor(kind: OperationKind, options: PipelineOptions = {}) {
    this.outcome = new OperationOutcome(kind, options);
    this.onEvent = options.onEvent;
    this.dedupWindow = options.dedupWindow;
    // Comments (`: keepalive`) and `retry:` carry no event; they are liveness only, and the
    // reader counts every received byte as liveness, so they need no handler here.
    this.frames = new FrameReader(
      {
        onFrame: (frame) => this.onFrame(frame),
        // A line that is no SSE field: the rest of a message the server broke with a line
        // break, or plain text an old server version wrote into the stream. The SSE spec
        // ignores such lines (and the parser may drop one cut by a chunk boundary), so it
        // is no event; it goes to the tail, where an error report can show it.
        onStray: (line) => this.outcome.noteOutput(line),
        onOverflow: (limit) => {
          this.brokenDetail = `a line or frame exceeded ${limit} characters`;
        },
      },
      { maxBufferChars: options.maxBufferChars },
    );
  }

  /** The operation's `close` event has arrived: what follows cannot change the outcome. */
  get closed(): boolean {
    return this.outcome.closed;
  }

  /** Set when the stream became unreadable (buffer limit); the reader stops then. */
  get broken(): string | undefined {
    return this.brokenDetail;
  }

  get lastEventId(): string | undefined {
    return this.outcome.lastEventId;
  }

  push(bytes: Uint8Array): void {
    this.frames.push(bytes);
  }

  /** End of input: flush the decoder, then decide. */
  finish(end: StreamEnd): Outcome {
    if (end.kind === "eof") this.frames.end();
    if (this.brokenDetail !== undefined && end.kind === "eof")
      return this.outcome.finish({ kind: "broken", detail: this.brokenDetail });
    return this.outcome.finish(end);
  }

  private onFrame(frame: Frame): void {
    const id = frame.id;
    // An empty `id:` resets the cursor (SSE spec) and identifies nothing, so it is not deduplicated.
    if (id) {
      this.ids ??= new IdWindow(this.dedupWindow);
      if (!this.ids.admit(id)) {
        this.duplicates++;
        return;
      }
    } else if (id === "") {
      this.outcome.lastEventId = undefined;
      frame = { event: frame.event, data: frame.data };
    }
    this.emit(decodeFrame(frame));
  }

  private emit(ev: OperationEvent): void {
    if (this.outcome.closed) return; // the operation is over; later frames change nothing
    this.outcome.observe(ev);
    this.onEvent?.(ev);
    // As for SSE services that resume from an id: an id counts only once its frame is fully processed.
    if (ev.id !== undefined) this.outcome.lastEventId = ev.id;
  }
}
