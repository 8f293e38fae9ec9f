// One look at the server's list, for the data sources and for discover. A
// failure says what the preview checks of `Vm` say of the same server
// (`the go-pve-qemu server at <url> cannot be reached (...)`), so a program
// reads the same sentence whichever part met the server first.
import { GoPveQemuClient } from "../client";
import type { ErrorCode, GoPveQemuApi, VmList } from "../client";
import { listProblem } from "../lifecycle";
import type { ResolvedConnection } from "../lifecycle";
import { nodesOf } from "./nodes";
import type { NodeInfo } from "./nodes";
import { vmsOf } from "./vms";
import type { VmInfo } from "./vms";

export interface Cluster {
  /** The endpoint asked. */
  endpoint: string;
  nodes: NodeInfo[];
  vms: VmInfo[];
}

/** Why the server's list could not be had. `code` is the lifecycle's for an unreachable server. */
class ClusterReadError extends Error {
  readonly code = "GPQ_UNREACHABLE" satisfies ErrorCode;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** GET /api/vm/list once, waiting at most `timeoutMs`. */
export async function listServer(conn: ResolvedConnection, timeoutMs: number): Promise<VmList> {
  let client: GoPveQemuClient;
  try {
    client = new GoPveQemuClient({ ...conn, requestTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs });
  } catch (err) {
    // A malformed endpoint: the client's own words name it.
    throw new ClusterReadError((err as Error).message, { cause: err });
  }
  try {
    return await client.list({ signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ClusterReadError(`the go-pve-qemu server at ${conn.endpoint} ${listProblem(err, timeoutMs)}`, {
      cause: err,
    });
  } finally {
    await client.close();
  }
}

/**
 * The cluster's nodes and VMs, from one list. `serverNode`: the node the
 * server calls its own, when this machine learned it (the list never says).
 * `client`: one its owner keeps (the provider core's, shared with its
 * operations); without one, a client of its own, closed after the list.
 */
export async function readCluster(
  conn: ResolvedConnection,
  timeoutMs: number,
  serverNode?: string,
  client?: GoPveQemuApi,
): Promise<Cluster> {
  const list = client ? await listWith(client, conn, timeoutMs) : await listServer(conn, timeoutMs);
  return { endpoint: conn.endpoint, nodes: nodesOf(list.nodes, serverNode), vms: vmsOf(list.vms) };
}

async function listWith(client: GoPveQemuApi, conn: ResolvedConnection, timeoutMs: number): Promise<VmList> {
  try {
    return await client.list({ timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new ClusterReadError(`the go-pve-qemu server at ${conn.endpoint} ${listProblem(err, timeoutMs)}`, {
      cause: err,
    });
  }
}
