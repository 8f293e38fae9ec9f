// A raw TCP client for the stream-corruption tests: the exact bytes the
// simulator wrote, chunk framing included, and whether the server ended or
// destroyed the connection. An HTTP client would stop at the first framing
// error; these tests need to see what comes after it.
import * as net from "node:net";

/**
 * Where a garbled fragment starts inside its frame, as in the recordings
 * (set-node-broken-chunk-framing-*.raw): `data: {"step":"mig` is cut off.
 */
export const FRAGMENT_OFFSET = 18;

export interface RawConnection {
  /** Everything received so far (latin1, so byte offsets are string offsets). */
  text(): string;
  /** The server ended (FIN) or destroyed the connection. */
  readonly ended: boolean;
  waitFor(needle: string): Promise<void>;
  /** Resolves once what was received satisfies `done`. */
  until(done: (text: string) => boolean): Promise<void>;
  /** Resolves once the server ended the connection. */
  closed: Promise<void>;
  destroy(): void;
}

export function rawRequest(base: string, method: string, path: string, body?: object): Promise<RawConnection> {
  const url = new URL(base);
  const payload = body === undefined ? "" : JSON.stringify(body);
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n` +
    (body === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`) +
    "\r\n";
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = "";
    let ended = false;
    const waiters: Array<{ done: (text: string) => boolean; resolve: () => void }> = [];
    let onClosed: () => void = () => undefined;
    const closed = new Promise<void>((r) => (onClosed = r));
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      received += chunk;
      for (const w of [...waiters]) {
        if (w.done(received)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
    const end = (): void => {
      ended = true;
      onClosed();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
    socket.once("connect", () => {
      socket.write(head + payload);
      resolve({
        text: () => received,
        get ended() {
          return ended;
        },
        until: (done) =>
          done(received) ? Promise.resolve() : new Promise<void>((r) => waiters.push({ done, resolve: r })),
        waitFor: (needle) =>
          received.includes(needle)
            ? Promise.resolve()
            : new Promise<void>((r) => waiters.push({ done: (t) => t.includes(needle), resolve: r })),
        closed,
        destroy: () => socket.destroy(),
      });
    });
    socket.once("error", reject);
  });
}

/** The body after the header block. */
export function rawBody(text: string): string {
  const at = text.indexOf("\r\n\r\n");
  return at === -1 ? "" : text.slice(at + 4);
}

/** One chunk of the chunked framing, as Go and Node write it. */
export function chunk(data: string): string {
  return `${Buffer.byteLength(data, "latin1").toString(16)}\r\n${data}\r\n`;
}
