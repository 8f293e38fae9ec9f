// Which VM on the server is this resource's. go-pve-qemu has no tags or
// labels; the only thing the provider controls on a VM is its name (the
// server names it `<name>-<vmid>`). So a resource declared without `name`
// gets a name derived from its URN (stack, project, type chain, resource
// name): `<resource name, sanitised>-<8 hex of sha256(URN)>`. The server then
// names the VM e.g. `web-3f9a0c12-101`, and a later create can recognise a VM
// that an interrupted create of this very resource left behind: another
// stack's VM of the same resource name has another URN and so another hash,
// and a VM made by hand does not carry the hash.
//
// A name the user gives is the user's: a VM with it is never taken over
// automatically (it could be anyone's); `adopt: true` does that on request.
import type { VmEntry } from "../client/schemas";
import { derivedName } from "./derived-name";
import { vmLabel } from "./labels";
import { realName } from "./state";

/** True when `name` is the name derived from this URN (so VMs carrying it are this resource's). */
export function isDerivedName(name: string | undefined, urn: string | undefined, maxLength: number): boolean {
  return name !== undefined && urn !== undefined && urn !== "" && name === derivedName(urn, maxLength);
}

/** What the list before an install says about it. */
export type BeforeInstall =
  | { kind: "install" }
  /** a VM of this resource's derived identity: left by an interrupted create of it */
  | { kind: "interrupted"; entry: VmEntry }
  | { kind: "refuse"; why: string };

/**
 * The list before an install. With a derived name, a VM carrying it (at the
 * pinned VMID, if one is pinned) is this resource's interrupted create. A
 * pinned VMID held by any other VM is refused, as before.
 */
export function beforeInstall(
  vms: VmEntry[],
  want: { vmid?: number; name?: string; derived: boolean; os: string; endpoint: string },
): BeforeInstall {
  const { vmid, name, derived } = want;
  const ours = (vm: VmEntry): boolean => derived && vm.name === realName(name, vm.vmid);
  const taken = vmid === undefined ? undefined : vms.find((vm) => vm.vmid === vmid);
  if (taken && !ours(taken)) {
    return {
      kind: "refuse",
      why:
        `vmid ${vmid} is already in use on ${want.endpoint} by VM "${taken.name}" (node ${taken.node}); pin another vmid, or omit it to let ` +
        "the server pick one; if that VM is the one this resource should manage, declare it with `adopt: true`",
    };
  }
  const mine = vms.filter((vm) => ours(vm) && (vmid === undefined || vm.vmid === vmid));
  if (mine.length > 1) {
    return {
      kind: "refuse",
      why: `${mine.length} VMs carry this resource's name (${mine.map((vm) => vmLabel(vm.vmid, vm.name)).join(", ")}); remove all but one on the server`,
    };
  }
  const entry = mine[0];
  if (entry === undefined) return { kind: "install" };
  if (entry.os !== "" && entry.os !== want.os) {
    return {
      kind: "refuse",
      why: `VM ${vmLabel(entry.vmid, entry.name)} was left by an interrupted create of this resource, but it runs ${entry.os}, not ${want.os}; remove it on the server or declare os "${entry.os}"`,
    };
  }
  return { kind: "interrupted", entry };
}
