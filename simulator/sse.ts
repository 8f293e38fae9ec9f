// The server's SSE writing, byte for byte: events are built by plain string
// concatenation (a `"` or `\` in a message makes the line invalid JSON), each
// is flushed as it happens, the stream ends with `event: close` / `data: {}`.
// No id:, no retry:, no comments, no heartbeats. When the client has gone,
// writes are skipped and the flow carries on, as the server's SSE() does.
//
// It also corrupts itself on demand the way the real server does when two
// goroutines write one response at once (see the recordings): bytes outside
// the chunked framing, a cut mid-frame, frames after `event: close`, lost or
// reordered frames.
import { corsHeaders, goOrder, sseHeaders, TEXT, type Ctx } from "./http";
import type { GarbleVariant } from "./fault-rules";

export function frame(step: string, status: string, message: string): string {
  return 'data: {"step":"' + step + '","status":"' + status + '","message":"' + message + '"}\n\n';
}

/** The handlers' bare failure line: no step, no status, a space after the colon. */
export function bareFrame(message: string): string {
  return 'data: {"message": "' + message + '"}\n\n';
}

export const CLOSE_FRAME = "event: close\ndata: {}\n\n";

/** Where a garbled fragment starts inside its frame (the recordings show one cut inside `"step":"migrating"`). */
const FRAGMENT_OFFSET = 18;

/** One corruption waiting for its frame: `skip` frames pass untouched first. */
export type Corruption =
  | { kind: "garble"; variant: GarbleVariant; skip: number }
  | { kind: "cut" | "late"; skip: number }
  | { kind: "lose" | "reorder"; lines: number; skip: number };

export class EventStream {
  private opened = false;
  private muted = false;
  private dropped = false;
  private ended = false;
  private closedByPeer = false;
  private readonly corruptions: Corruption[] = [];
  /** Frames `reorder` holds back until the next frame has gone out. */
  private held: string[] = [];
  /** Frames `late` holds back until after `event: close`. */
  private late: string[] = [];
  /** A `hidden` framing break struck: nothing more reaches the client, and the end is a break. */
  private hidden = false;
  /** A corruption has struck this stream (for the stats). */
  corrupted = false;

  constructor(
    private readonly ctx: Ctx,
    /** Streams that stall stay open until the simulator closes: it must know them. */
    private readonly onStall: (destroy: () => void) => void,
  ) {
    ctx.res.on("close", () => {
      this.closedByPeer = true;
    });
  }

  /** The client went away (or we dropped it): nothing more reaches it. */
  get gone(): boolean {
    return this.dropped || this.closedByPeer || this.ctx.res.destroyed || this.ctx.res.writableEnded;
  }

  /** The service's header block, flushed before the first event. */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.ctx.res.writeHead(200, sseHeaders(this.ctx));
    this.ctx.res.flushHeaders();
  }

  event(step: string, status: string, message: string): void {
    this.send(frame(step, status, message));
  }

  /** A named frame (`event: error` and the like): go-pve-qemu never writes one, proxies and other services do. */
  named(event: string, data: string): void {
    this.send(`event: ${event}\ndata: ${data}\n\n`);
  }

  /** Arms a corruption for the coming frames. */
  corrupt(c: Corruption): void {
    this.corruptions.push({ ...c });
  }

  /** A handler's bare message; the response then ends without a close event. */
  bareAndEnd(message: string): void {
    if (!this.opened) {
      // Written before any header was set: Go sniffs the body as plain text.
      this.opened = true;
      if (!this.gone && !this.muted)
        this.ctx.res.writeHead(200, goOrder({ ...corsHeaders(this.ctx), "Content-Type": TEXT }));
    }
    this.send(bareFrame(message));
    this.flushHeld();
    this.flushLate();
    this.end();
  }

  /** `event: close`, then the end of the response. */
  close(): void {
    this.flushHeld();
    this.send(CLOSE_FRAME);
    this.flushLate();
    this.end();
  }

  /** The end of the response without `event: close` (held-back frames still go out first). */
  finish(): void {
    this.flushHeld();
    this.flushLate();
    this.end();
  }

  /**
   * Cut the connection (no terminating chunk): the client sees a broken
   * stream. What was written before still reaches it, so tests know exactly
   * where the cut happened.
   */
  drop(): void {
    if (this.gone) return;
    this.dropped = true;
    const socket = this.ctx.res.socket;
    if (socket) socket.end();
    else this.ctx.res.destroy();
  }

  /** Write nothing more and keep the connection open: silence without end. */
  stall(): void {
    if (this.muted || this.gone) return;
    this.muted = true;
    this.onStall(() => this.ctx.res.destroy());
  }

  /** A frame on its way out: the armed corruptions decide what is written. */
  private send(text: string): void {
    const c = this.corruptions[0];
    if (c && c.skip > 0) {
      c.skip--;
    } else if (c) {
      this.corrupted = true;
      if (c.kind === "lose" || c.kind === "reorder") {
        if (--c.lines <= 0) this.corruptions.shift();
        if (c.kind === "lose") return;
        this.held.push(text);
        return;
      }
      this.corruptions.shift();
      if (c.kind === "late" && text !== CLOSE_FRAME) {
        this.late.push(text);
        return;
      }
      if (c.kind === "garble") return this.garble(text, c.variant);
      if (c.kind === "cut") return this.cut(text);
    }
    this.write(text);
    if (this.held.length > 0 && this.corruptions[0]?.kind !== "reorder") this.flushHeld();
  }

  private flushHeld(): void {
    const held = this.held;
    this.held = [];
    for (const text of held) this.write(text);
  }

  private flushLate(): void {
    const late = this.late;
    this.late = [];
    for (const text of late) this.write(text);
  }

  /** The frame as a proper chunk, then bytes outside the framing. */
  private garble(text: string, variant: GarbleVariant): void {
    if (this.muted || this.gone) return;
    this.open();
    const socket = this.ctx.res.socket;
    if (!socket) return;
    if (variant === "hidden") {
      // The frame goes out; nothing after it reaches the client as frames, and its end is a break.
      this.ctx.res.write(text);
      this.hidden = true;
      return;
    }
    if (variant === "crlf") {
      // A chunk that lacks the LF of its CRLF, then the frame again: the stream goes on.
      socket.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r`);
      this.ctx.res.write(text);
      return;
    }
    this.ctx.res.write(text);
    const raw = variant === "fragment" ? text.slice(Math.min(FRAGMENT_OFFSET, text.length - 1)) : `\r\n${text}`;
    socket.write(`${raw}\r\n`);
    // The response never ends: nothing more is written, the connection stays open.
    this.stall();
  }

  /** Half of the frame's chunk, then the socket is destroyed. */
  private cut(text: string): void {
    if (this.muted || this.gone) return;
    this.open();
    const socket = this.ctx.res.socket;
    this.dropped = true;
    if (!socket) {
      this.ctx.res.destroy();
      return;
    }
    const bytes = Buffer.from(text);
    socket.write(`${bytes.length.toString(16)}\r\n`);
    socket.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
    socket.destroySoon();
  }

  private write(text: string): void {
    if (this.muted || this.gone || this.hidden) return;
    this.open();
    this.ctx.res.write(text);
  }

  private end(): void {
    if (this.hidden) return this.drop();
    if (this.ended || this.muted || this.gone) return;
    this.ended = true;
    this.ctx.res.end();
  }
}
