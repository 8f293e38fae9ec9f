// A port that stays closed for the tests of a server that cannot be reached.
import * as net from "node:net";

/**
 * A loopback port with nothing listening, for a server that cannot be
 * reached: below the kernel's range of ports handed out for port 0 (Linux:
 * 32768 and up), so that no server another process starts meanwhile (the
 * engine's own gRPC servers, say) is given it.
 */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
