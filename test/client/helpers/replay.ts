// Replays a recorded HTTP response, byte for byte, from a loopback TCP server:
// whatever the request, the recording is the answer, and a recording whose
// response never ended leaves the connection open and silent (as the real
// server did). Recordings are the files of test/fixtures/upstream/.
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

const UPSTREAM_DIR = path.join(__dirname, "../../fixtures/upstream");

// The recorder's own line after a response that ended; not part of the response.
const TRAILER = /\n\n\[framing=[^\]\n]*\]\n$/;

export interface Recording {
  name: string;
  /** The response bytes as the client received them. */
  bytes: Buffer;
  /** The response ended (the recorder saw its end). */
  ended: boolean;
}

export function loadRecording(name: string): Recording {
  const raw = fs.readFileSync(path.join(UPSTREAM_DIR, name));
  const text = raw.toString("latin1");
  const m = TRAILER.exec(text);
  return { name, bytes: m ? raw.subarray(0, m.index) : raw, ended: m !== null };
}

export function recordingNames(): string[] {
  return fs
    .readdirSync(UPSTREAM_DIR)
    .filter((f) => f.endsWith(".raw"))
    .sort();
}

export interface ReplayServer {
  url: string;
  /** The request lines received ("POST /api/vm/install"). */
  requests: string[];
  close(): Promise<void>;
}

export async function replay(recording: Recording): Promise<ReplayServer> {
  const sockets = new Set<net.Socket>();
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    let answered = false;
    socket.on("data", (chunk: Buffer) => {
      if (answered) return;
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head.slice(0, end));
      if (length && head.length < end + 4 + Number(length[1])) return;
      answered = true;
      requests.push(head.slice(0, head.indexOf(" HTTP/")));
      socket.write(recording.bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
