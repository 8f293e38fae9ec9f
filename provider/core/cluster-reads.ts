// The data sources (getNodes, getVms) on both ways in: the cluster read with
// the core's clients, once per connection for the core's life (a program
// run on the dynamic provider, a deployment's provider process on the
// resource plugin): every call sees the same snapshot, and a loop over VMs
// costs one request.
import { readCluster, type Cluster } from "../cluster";
import type { GoPveQemuApi } from "../client";
import * as lifecycle from "../lifecycle";
import { connectionKey } from "./clients";
import type { ProviderSettings } from "../settings";

/** Why a read failed, said by the caller (the data source's name leads its message). */
export class ClusterReadFailure extends Error {
  constructor(
    message: string,
    /** the read reached no server (not a bad setting): a preview may go on offline */
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

/** What the reads take of the provider core. */
export interface ClusterReadsOf {
  settings(): ProviderSettings;
  client(conn: lifecycle.ResolvedConnection): GoPveQemuApi;
  serverNodeOf(endpoint: string): Promise<string | undefined>;
}

export class ClusterReads {
  private readonly snapshots = new Map<string, Promise<Cluster>>();

  constructor(private readonly core: ClusterReadsOf) {}

  /**
   * The cluster at this connection (else the settings' one); undefined at a
   * preview with goPveQemu:offline, whose values are not known until `up`.
   */
  async read(own: lifecycle.ConnectionInput | undefined, dryRun: boolean): Promise<Cluster | undefined> {
    let settings, conn;
    try {
      settings = this.core.settings();
      conn = lifecycle.resolveConnection(own, settings.connection);
    } catch (err) {
      // A bad setting, or no endpoint anywhere.
      throw new ClusterReadFailure((err as Error).message, false);
    }
    if (settings.serverChecks.offline && dryRun) return undefined;
    const key = connectionKey(conn);
    let snapshot = this.snapshots.get(key);
    if (snapshot === undefined) {
      const { timeoutMs } = settings.serverChecks;
      const known = this.core.serverNodeOf(conn.endpoint);
      // A malformed endpoint fails in the client's own words, as a failed read.
      snapshot = known.then((serverNode) => readCluster(conn, timeoutMs, serverNode, this.core.client(conn)));
      this.snapshots.set(key, snapshot);
    }
    try {
      return await snapshot;
    } catch (err) {
      throw new ClusterReadFailure((err as Error).message, true);
    }
  }
}
