// The body of one install request: what the server is sent, and whether it
// names a node (and so migrates the VM).
import type { InstallRequest } from "../../../client";
import { SERVER_DEFAULTS, dropUndefined } from "../../model";
import type { InstallJob } from "../job";

/**
 * The server's install body. cpu, ram and disk are always sent, with the
 * documented defaults (2, 2048 MB, 16 GiB) for omitted inputs: the server's
 * code validates them BEFORE applying its defaults, so an omitted cpu would
 * become 1 and an omitted ram 512, unlike its docs. Sending them gives the same
 * VM on either behaviour, and "omitted" keeps meaning the documented default.
 */
export function installRequest(
  job: Pick<InstallJob, "inputs" | "name" | "serverNode">,
  password: string,
): InstallRequest {
  const { inputs } = job;
  return dropUndefined({
    os: inputs.os,
    version: inputs.version,
    name: job.name,
    id: inputs.vmid,
    node: sendsNode(job) ? inputs.node : undefined,
    cpu: inputs.cpu ?? SERVER_DEFAULTS.cpu,
    ram: inputs.memoryMb ?? SERVER_DEFAULTS.memoryMb,
    disk: `${inputs.diskGb ?? SERVER_DEFAULTS.diskGb}G`,
    user: inputs.user,
    passwd: password,
    pubkey: inputs.sshPublicKey?.trim(),
  });
}

/**
 * The install names `node`, and so migrates: unless that node is the server's
 * own, where the server creates every VM, and to which Proxmox refuses to migrate it.
 */
export function sendsNode(job: Pick<InstallJob, "inputs" | "serverNode">): boolean {
  return job.inputs.node !== undefined && job.inputs.node !== job.serverNode;
}
