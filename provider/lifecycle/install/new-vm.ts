// An install whose VMID no answer named (a gateway's answer in place of the
// stream, a stream cut before its first step): which new VM on the server is
// its own. Only a VM that nothing else can have made is taken:
// - with this stack's mark in the name: the one new VM carrying it;
// - with a name the user gave (or an unverifiable mark): the one new VM named
//   as the install sent it, when no VM of that name was on the server before
//   the install (nobody else installs it there), and no other install of the
//   name ran in this process meanwhile. Another client installing the same
//   name at that very moment is out of sight; it would have to be the first
//   to install that name on this server, in the same seconds.
// A name's VM that cannot be told to be this install's ends the follow with
// an error that names each candidate and the one step that takes it in:
// never in silence, never as "nothing was made".
import type { VmEntry } from "../../client";
import { CODES, LifecycleError, realName } from "../model";
import { vmLabel } from "../core";
import { claimOf, ownVms } from "./identity";
import type { InstallJob } from "./job";
import type { NameHold } from "../core";

/** What an unmarked install with the server's VMID needs to recognise its VM; undefined for any other. */
export function sameNameOf(job: InstallJob, vms: VmEntry[], hold: NameHold): InstallJob["sameName"] {
  const { name } = job;
  if (job.marked || job.inputs.vmid !== undefined || name === undefined) return undefined;
  return { before: vms.filter((vm) => vm.name === realName(name, vm.vmid)), contested: () => hold.contested() };
}

/** The new VM that can only be this install's, or undefined while none is there; throws when it cannot be told. */
export async function newVmOf(job: InstallJob, before: Set<number>, why: string): Promise<VmEntry | undefined> {
  const { client, ctx, inputs, key } = job;
  if (!job.marked && job.sameName === undefined) return undefined;
  const others = ctx.process.installGates.inFlight(key);
  const vms = (await client.list({ signal: ctx.signal })).vms;
  const pool = job.marked ? ownVms(vms, claimOf(job)).map((o) => o.entry) : vms;
  const mine = pool.filter(
    (vm) =>
      !before.has(vm.vmid) &&
      !others.has(vm.vmid) &&
      vm.name === realName(job.name, vm.vmid) &&
      (vm.os === "" || vm.os === inputs.os),
  );
  if (mine.length === 0) return undefined;
  if (job.marked) {
    if (mine.length > 1) throw new Error(`${mine.length} new VMs could be this install's (${labels(mine)})`);
    return mine[0];
  }
  const doubts = doubtsOf(mine, job.sameName!);
  if (doubts.length > 0) {
    throw new LifecycleError(`${unclaimed(job, mine, why)}: ${doubts.join("; ")}. ${takeIn(mine)}`, {
      code: CODES.installUnknown,
    });
  }
  ctx.reporter.warn(
    `VM ${labels(mine)} is taken as this install's: it is the one new VM named as the install sent it ` +
      `("${job.name}-<vmid>"), no VM of that name was on ${job.conn.endpoint} before, and no other install of it ran here meanwhile`,
  );
  return mine[0];
}

function doubtsOf(mine: VmEntry[], same: NonNullable<InstallJob["sameName"]>): string[] {
  const doubts: string[] = [];
  if (mine.length > 1) doubts.push(`${mine.length} new VMs have that name, and only one can be this install's`);
  if (same.before.length > 0) {
    doubts.push(`${labels(same.before)} had that name before the install: someone else installs it on this server too`);
  }
  if (same.contested()) doubts.push("another install of that name ran in this process meanwhile");
  return doubts;
}

function unclaimed(job: InstallJob, mine: VmEntry[], why: string): string {
  const which = mine.length === 1 ? `VM ${labels(mine)} appeared` : `VMs ${labels(mine)} appeared`;
  return (
    `the install's answer did not name the VMID (${why.split("\n")[0]}), and the server went on: ` +
    `${which} on ${job.conn.endpoint} since, named as the install sent it ("${job.name}-<vmid>"). ` +
    `It is not recorded in state, as nothing shows that it is this install's`
  );
}

/** The one step that takes a candidate in: `adopt` on the resource, with the name it has. */
function takeIn(mine: VmEntry[]): string {
  const vmid =
    mine.length === 1 ? `\`vmid: ${mine[0]!.vmid}\`` : `its \`vmid\` (${mine.map((vm) => vm.vmid).join(" or ")})`;
  return (
    `If ${mine.length === 1 ? "it" : "one of them"} is this stack's, take it in: declare ${vmid} and \`adopt: true\` ` +
    "on this resource, keeping its `name`, then run `pulumi up` again; if none is, it is someone else's: leave it"
  );
}

function labels(vms: VmEntry[]): string {
  return vms.map((vm) => vmLabel(vm.vmid, vm.name)).join(", ");
}
