// What to do with each pending create of a Vm, from the evidence alone. A VM
// the next `pulumi up` should take over is written into this machine's
// install journal, which the create reads; nothing is changed on the server.
// - the resource is in state already: its pending create is stale (cleared
//   once `up` succeeded);
// - no name: its VM carries this stack's mark, and the next create takes it
//   over by itself;
// - a name and a pinned VMID: the VM at that VMID under that name is the one
//   this stack's pending create set out to make;
// - a name, the server picking the VMID: a name anyone can give is no
//   evidence, so the user says which VM it is (`--adopt`), or that none is
//   (`--discard`); until then the `up` would install a second VM beside it.
import type { VmEntry } from "../client";
import type { PendingVm } from "./pending";

export type Resolution =
  | { urn: string; kind: "in-state" }
  | { urn: string; kind: "marked" }
  | { urn: string; kind: "journal"; vmid: number; name: string; why: string }
  | { urn: string; kind: "nothing"; why: string }
  | { urn: string; kind: "undecided"; candidates: VmEntry[]; why: string }
  | { urn: string; kind: "discard" };

export interface Decisions {
  /** URN -> the VMID the user says is this resource's */
  adopt: Map<string, number>;
  /** URNs the user says made no VM */
  discard: Set<string>;
}

export function planRecovery(
  p: PendingVm,
  vms: VmEntry[],
  inState: { urns: Set<string>; vmids: Set<number> },
  d: Decisions,
): Resolution {
  const { urn } = p;
  if (inState.urns.has(urn)) return { urn, kind: "in-state" };
  if (d.discard.has(urn)) return { urn, kind: "discard" };
  const free = vms.filter((vm) => !inState.vmids.has(vm.vmid));
  const adopted = d.adopt.get(urn);
  if (adopted !== undefined) return adoptAt(p, free, adopted);
  if (p.name === undefined && p.identity !== undefined) return { urn, kind: "marked" };
  if (p.name === undefined) {
    return { urn, kind: "nothing", why: "its create began without the stack's identity; nothing marks its VM" };
  }
  if (p.vmid !== undefined) return pinned(p, p.name, p.vmid, free);
  const candidates = free.filter((vm) => vm.name === `${p.name}-${vm.vmid}`);
  if (candidates.length === 0) return { urn, kind: "nothing", why: `no VM named ${p.name}-<vmid> is on the server` };
  return {
    urn,
    kind: "undecided",
    candidates,
    why: `the server picked its VMID, and ${candidates.map((vm) => vm.name).join(", ")} carry its name, which is no evidence by itself`,
  };
}

function pinned(p: PendingVm, name: string, vmid: number, free: VmEntry[]): Resolution {
  const vm = free.find((v) => v.vmid === vmid);
  if (vm === undefined) {
    return { urn: p.urn, kind: "nothing", why: `VMID ${vmid} is not on the server (or is held in state)` };
  }
  if (vm.name !== `${name}-${vmid}`) {
    return { urn: p.urn, kind: "nothing", why: `VMID ${vmid} is held by ${vm.name}, not ${name}-${vmid}` };
  }
  return {
    urn: p.urn,
    kind: "journal",
    vmid,
    name,
    why: `this stack's pending create pinned VMID ${vmid} under the name ${name}`,
  };
}

function adoptAt(p: PendingVm, free: VmEntry[], vmid: number): Resolution {
  const vm = free.find((v) => v.vmid === vmid);
  if (vm === undefined) {
    return {
      urn: p.urn,
      kind: "nothing",
      why: `--adopt names VMID ${vmid}, which is not on the server or is held in state`,
    };
  }
  const name = p.name ?? vm.name.replace(new RegExp(`-${vmid}$`), "");
  if (p.name !== undefined && vm.name !== `${p.name}-${vmid}`) {
    return {
      urn: p.urn,
      kind: "nothing",
      why: `--adopt names VMID ${vmid}, which is ${vm.name}, not ${p.name}-${vmid}`,
    };
  }
  return { urn: p.urn, kind: "journal", vmid, name, why: "named by --adopt" };
}
