// One client (one pooled dispatcher) per distinct connection setting, for
// every operation and data source of one provider core; the key that tells
// two connections apart is written here alone.
import { GoPveQemuClient, ServerWritesRegistry, shareWindowMs } from "../client";
import type { GoPveQemuApi } from "../client";
import * as lifecycle from "../lifecycle";
import type { ProviderSettings } from "../settings";

/** What makes two connections two clients: where, and with which credentials and trust. */
export function connectionKey(conn: lifecycle.ResolvedConnection): string {
  return JSON.stringify([conn.endpoint, conn.token ?? "", conn.headers ?? {}, conn.caCert ?? ""]);
}

export class ClientPool {
  private readonly clients = new Map<string, GoPveQemuApi>();
  /** Every client of this core sees the others' writes (no list answer is shared across one). */
  private readonly writes = new ServerWritesRegistry();

  /** @param settings the settings a new client is made with (the core's, as configured now) */
  constructor(private readonly settings: () => ProviderSettings) {}

  clientFor(conn: lifecycle.ResolvedConnection): GoPveQemuApi {
    const key = connectionKey(conn);
    let client = this.clients.get(key);
    if (!client) {
      const s = this.settings();
      client = new GoPveQemuClient({
        ...conn,
        streamIdleTimeoutMs: s.stream.idleTimeoutMs,
        streamOverallTimeoutMs: s.stream.overallTimeoutMs,
        streamHeadersTimeoutMs: s.stream.headersTimeoutMs,
        // The VMs of one deployment share list answers, briefly enough that every poll round is fresh.
        listShareMs: shareWindowMs(s.timing.pollIntervalMs ?? lifecycle.DEFAULT_TIMING.pollIntervalMs),
        serverWrites: this.writes,
      });
      this.clients.set(key, client);
    }
    return client;
  }
}
