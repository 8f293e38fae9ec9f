// The server's SSE writing, byte for byte: events are built by plain string
// concatenation (a `"` or `\` in a message makes the line invalid JSON), each
// is flushed as it happens, the stream ends with `event: close` / `data: {}`.
// No id:, no retry:, no comments, no heartbeats. When the client has gone,
// writes are skipped and the flow carries on, as the server's SSE() does.
import { sseHeaders, TEXT, corsHeaders, type Ctx } from "./http";

export function frame(step: string, status: string, message: string): string {
  return 'data: {"step":"' + step + '","status":"' + status + '","message":"' + message + '"}\n\n';
}

/** The handlers' bare failure line: no step, no status, a space after the colon. */
export function bareFrame(message: string): string {
  return 'data: {"message": "' + message + '"}\n\n';
}

export const CLOSE_FRAME = "event: close\ndata: {}\n\n";

export class EventStream {
  private opened = false;
  private muted = false;
  private dropped = false;
  private ended = false;
  private closedByPeer = false;

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
    this.write(frame(step, status, message));
  }

  /** A handler's bare message; the response then ends without a close event. */
  bareAndEnd(message: string): void {
    if (!this.opened) {
      // Written before any header was set: Go sniffs the body as plain text.
      this.opened = true;
      if (!this.gone && !this.muted) this.ctx.res.writeHead(200, { ...corsHeaders(this.ctx), "Content-Type": TEXT });
    }
    this.write(bareFrame(message));
    this.end();
  }

  /** `event: close`, then the end of the response. */
  close(): void {
    this.write(CLOSE_FRAME);
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

  private write(text: string): void {
    if (this.muted || this.gone) return;
    this.open();
    this.ctx.res.write(text);
  }

  private end(): void {
    if (this.ended || this.muted || this.gone) return;
    this.ended = true;
    this.ctx.res.end();
  }
}
