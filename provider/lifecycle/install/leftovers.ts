// A VM that carries this resource's mark (stackName) but is not the VM
// this resource keeps was left by an earlier interrupted create of this very
// resource: an install the server finished after its deployment died, say,
// while a later create made the VM now in state. Only this stack can have
// made it, and this resource will never record it: it is this stack's own
// garbage, removed with a warning that names it. Best effort: a removal that
// fails is said, and the create it follows still stands.
import type { VmEntry } from "../../client";
import { destroyVm } from "../delete";
import { claimOf, ownVms } from "./identity";
import { vmLabel, errorText } from "../core";
import type { InstallJob } from "./job";

/** Removes these VMs of this resource's earlier interrupted creates. */
export async function removeLeftovers(job: InstallJob, leftovers: VmEntry[]): Promise<void> {
  for (const vm of leftovers) {
    const label = vmLabel(vm.vmid, vm.name);
    job.ctx.reporter.warn(
      `VM ${label} carries this stack's mark for this resource but is not its VM: an earlier interrupted create of this ` +
        "resource left it; removing it",
    );
    try {
      await destroyVm(job.client, vm.vmid, label, job.ctx, job.redact, vm.name);
    } catch (err) {
      if (job.ctx.signal?.aborted) throw err;
      job.ctx.reporter.warn(`removing VM ${label} failed (${errorText(err, job.redact)}); remove it on the server`);
    }
  }
}

/** After a successful install: the server's other VMs with this resource's mark, removed. */
export async function sweepLeftovers(job: InstallJob, keep: number): Promise<void> {
  let vms: VmEntry[];
  try {
    vms = (await job.client.list({ signal: job.ctx.signal })).vms;
  } catch {
    return; // nothing is known of them now; the next create looks again
  }
  await removeLeftovers(
    job,
    ownVms(vms, claimOf(job))
      .filter((o) => o.evidence === "mark" && o.entry.vmid !== keep)
      .map((o) => o.entry),
  );
}
