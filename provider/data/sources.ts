// getNodes() and getVms(): the cluster as Pulumi outputs, read by the program
// itself (not by a resource), so `pulumi preview` already shows their values
// and a Vm's `node` can follow from them. The reading is the provider core's
// (the resource plugin's functions answer from the same code): one core per
// program run, kept on the run's stack resource, so each connection is read
// once per run, every call sees the same snapshot, and a loop over VMs costs
// one request.
//
// The core is loaded on the first call: a program that only declares Vms
// must not pay for loading the HTTP client.
import * as pulumi from "@pulumi/pulumi";
import type { Cluster, NodeInfo, VmInfo } from "../cluster";
import type { VmConnectionArgs } from "../dynamic";

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

/** Where a run's core is kept on its stack resource. */
const CORE = Symbol.for("go-pve-qemu-pulumi.dataCore");

type Core = import("../core").ProviderCore;

/** This run's provider core, made on the first call: settings from the program's stack config. */
async function runCore(): Promise<Core> {
  const stack = pulumi.runtime.getStackResource() as { [CORE]?: Promise<Core> } | undefined;
  // Outside a program run (a test's mocks without a stack) nothing is kept: each read makes its own.
  if (stack === undefined) return newCore();
  stack[CORE] ??= newCore();
  return stack[CORE];
}

function newCore(): Promise<Core> {
  return Promise.all([import("../core"), import("../engine")]).then(([core, engine]) => {
    const made = core.configure({ env: process.env, engineUnknown: engine.ENGINE_UNKNOWN });
    try {
      made.configure((key) => pulumi.runtime.getConfig(key), new Map());
    } catch {
      // Kept by the core: every read fails with it.
    }
    return made;
  });
}

/** The cluster at this connection, read once per program run; undefined while offline at preview. */
async function clusterOnce(caller: string, own: Connection | undefined): Promise<Cluster | undefined> {
  const core = await runCore();
  try {
    return await core.clusters.read(own, pulumi.runtime.isDryRun());
  } catch (err) {
    const { message, unreachable } = err as { message: string; unreachable?: boolean };
    // A bad goPveQemu:* value, or no endpoint anywhere.
    if (!unreachable) throw failure(`${caller}: ${message}`);
    throw failure(
      `${caller}: ${message}. For previews without the server, set ` +
        "`pulumi config set goPveQemu:offline true` (or GO_PVE_QEMU_OFFLINE=true): its values are then not known until `pulumi up`",
    );
  }
}
