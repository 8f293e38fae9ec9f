// getNodes() and getVms(): the cluster as Pulumi outputs, read by the program
// itself (not by a resource), so `pulumi preview` already shows their values
// and a Vm's `node` can follow from them. Each connection is read once per
// program run: every call sees the same snapshot, and a loop over VMs costs
// one request.
//
// The reading itself is loaded on the first call: a program that only
// declares Vms must not pay for loading the HTTP client.
import * as pulumi from "@pulumi/pulumi";
import type { Cluster, NodeInfo, VmInfo } from "../cluster";
import type { VmConnectionArgs } from "../resource";

export interface ClusterArgs {
  /** Where the server is; the stack config (goPveQemu:endpoint, goPveQemu:token), then the environment, when omitted. */
  connection?: pulumi.Input<VmConnectionArgs>;
}

/** The cluster's nodes, sorted by name. */
export function getNodes(args: ClusterArgs = {}): pulumi.Output<NodeInfo[]> {
  return fromCluster("getNodes", args, (cluster) => cluster.nodes);
}

/** The server's VMs as its list gives them, sorted by VMID. */
export function getVms(args: ClusterArgs = {}): pulumi.Output<VmInfo[]> {
  return fromCluster("getVms", args, (cluster) => cluster.vms);
}

type Connection = pulumi.Unwrap<VmConnectionArgs>;

function fromCluster<T>(caller: string, args: ClusterArgs, pick: (cluster: Cluster) => T): pulumi.Output<T> {
  const read = pulumi.output(args.connection).apply(async (conn) => {
    const cluster = await clusterOnce(caller, conn);
    return cluster === undefined ? (pulumi.unknown as unknown as T) : pick(cluster);
  });
  // What the server lists is no secret, even when the connection carries a token.
  return pulumi.unsecret(read) as pulumi.Output<T>;
}

/**
 * The program's failure: the message alone. A RunError is reported by its
 * message, and its stack is set to that message before anything formats it:
 * under ts-node, formatting the stack of an error thrown in an Output (source
 * maps of every frame) held a failing preview for a minute and more.
 */
function failure(message: string): pulumi.RunError {
  const err = new pulumi.RunError(message);
  err.stack = message;
  return err;
}

const snapshots = new Map<string, Promise<Cluster>>();

/** The cluster at this connection, read once per program run; undefined while offline at preview. */
async function clusterOnce(caller: string, own: Connection | undefined): Promise<Cluster | undefined> {
  const [{ readCluster }, { defaultJournalDir, fileServerNodes, resolveConnection }, { readSettings }] =
    await Promise.all([import("../cluster"), import("../lifecycle"), import("../settings")]);
  let settings, conn;
  try {
    settings = readSettings((key) => pulumi.runtime.getConfig(key), process.env);
    conn = resolveConnection(own, settings.connection);
  } catch (err) {
    // A bad goPveQemu:* value, or no endpoint anywhere.
    throw failure(`${caller}: ${(err as Error).message}`);
  }
  // Previews in CI without the server (goPveQemu:offline): the values are not known until `up`.
  if (settings.serverChecks.offline && pulumi.runtime.isDryRun()) return undefined;
  const key = JSON.stringify([conn.endpoint, conn.token ?? "", conn.headers ?? {}, conn.caCert ?? ""]);
  let snapshot = snapshots.get(key);
  if (snapshot === undefined) {
    // What an install on this machine showed of the server's own node (the provider writes it beside its journal).
    const known = fileServerNodes(defaultJournalDir(process.env))
      .get(conn.endpoint)
      .catch(() => undefined);
    const { timeoutMs } = settings.serverChecks;
    snapshot = known.then((serverNode) => readCluster(conn, timeoutMs, serverNode));
    snapshots.set(key, snapshot);
  }
  try {
    return await snapshot;
  } catch (err) {
    throw failure(
      `${caller}: ${(err as Error).message}. For previews without the server, set ` +
        "`pulumi config set goPveQemu:offline true` (or GO_PVE_QEMU_OFFLINE=true): its values are then not known until `pulumi up`",
    );
  }
}
