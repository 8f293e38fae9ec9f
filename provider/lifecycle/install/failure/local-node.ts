// An install that named the server's own node. The server creates every VM
// on its own node and then runs `qm migrate` to `node`; Proxmox refuses a
// migration to the node the VM is on ("target is local node"), and the server
// then closes the stream with no error and no completion, leaving the VM
// configured, stopped and never initialised. That refusal proves which node
// is the server's: it is learned, the half-made VM (its VMID came in this
// install's stream, and it was not there before) is destroyed, and the
// install runs again without `node`, which puts the VM on that very node.
import { destroyVm } from "../../delete";
import { errorText, vmLabel } from "../../core";
import { realName } from "../../model";
import type { InstallJob } from "../job";

interface Again {
  kind: "retry";
  reason: string;
  advice: string;
  serverNode: string;
}

/** The retry without `node`, or undefined when the VM cannot be removed (the failure is then recorded as usual). */
export async function localNodeRefused(
  job: InstallJob,
  vmid: number | undefined,
  before: Set<number>,
): Promise<Again | undefined> {
  const { ctx, conn } = job;
  const node = job.inputs.node!;
  const label = vmid === undefined ? "of this install" : vmLabel(vmid, realName(job.name, vmid));
  const shown = `Proxmox refused to migrate VM ${label} to node ${node}: "target is local node"`;
  await ctx.serverNodes
    ?.learn(conn.endpoint, node, `an install's migration to it was refused: target is local node`)
    .catch((err: unknown) => ctx.reporter.debug(`the server's node could not be written down: ${String(err)}`));
  // A cancelled create removes nothing more: the VM is recorded as it is, and the next `up` replaces it.
  if (vmid === undefined || before.has(vmid) || ctx.signal?.aborted) return undefined;
  ctx.reporter.warn(
    `node ${node} is the server's own node, where it creates every VM; ${shown}. ` +
      `Destroying the half-made VM ${label}, never started`,
  );
  try {
    const gone = await destroyVm(job.client, vmid, label, ctx, job.redact, realName(job.name, vmid));
    if (gone === "other") return undefined;
  } catch (err) {
    ctx.reporter.warn(`the half-made VM ${label} could not be destroyed: ${errorText(err, job.redact)}`);
    return undefined;
  }
  // The install the journal holds for this resource is over, its VM gone: the retry is no takeover of it.
  if (job.identity !== undefined && ctx.urn !== undefined) {
    await ctx.journal?.remove(job.identity, ctx.urn).catch(() => undefined);
  }
  return {
    kind: "retry",
    reason: `node ${node} is the server's own node (${shown}); the half-made VM is destroyed, and the install runs there without naming it`,
    advice: `Node ${node} is the server's own node: installs reach it without a migration`,
    serverNode: node,
  };
}
