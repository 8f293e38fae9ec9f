// Whose VM is it. A VM on the server is taken as this resource's only on
// evidence that this very resource of this very stack made it:
// - its name carries this stack's mark for this resource (stackName), or
// - this machine's install journal says this resource's install
//   was given its VMID, and the VM there has the name that install sent.
// Either also says when that install began. A name alone, one the user gave
// or one anyone could derive from the URN, is no evidence: another team may
// run the same project, stack and resource names against the same server.
//
// Before an install, one such VM is this resource's interrupted create (a
// deployment killed mid-install: state never heard of it), taken over
// instead of installed twice; more than one means earlier interrupted
// creates each left one, and all but the first are this stack's own
// leftovers. A journal entry whose VM is not there yet is an install the
// server may still be carrying out: it is waited for, not duplicated.
import type { VmEntry } from "../../client";
import type { JournalEntry } from "../model";
import type { InstallJob } from "./job";
import { LIMITS, readStackName, realName } from "../model";
import { vmLabel } from "../core";

/** What the create knows that can tell its own VMs from others'. */
export interface Claim {
  vmid?: number;
  /** the name the user gave, if any */
  name?: string;
  /** the stack's identity (the StackIdentity resource), when the program declared it */
  identity?: string;
  urn?: string;
  os: string;
  endpoint: string;
  nameMax: number;
  /** this machine's journal entry for this resource, if any */
  journal?: JournalEntry;
}

/** A VM that this resource's earlier, interrupted create made. */
export interface Own {
  entry: VmEntry;
  /** when its install began, by the evidence */
  startedAt: number;
  evidence: "mark" | "journal";
}

/** What the list before an install says about it. */
export type BeforeInstall =
  | { kind: "install" }
  /** an interrupted create of this resource left `own` (and, beyond it, `leftovers`) */
  | { kind: "interrupted"; own: Own; leftovers: Own[] }
  /** this machine's journal says an install of this resource began, and its VM is not there yet */
  | { kind: "pending"; journal: JournalEntry }
  | { kind: "refuse"; why: string };

/** What an install job can claim by. */
export function claimOf(job: InstallJob, journal?: JournalEntry): Claim {
  return {
    vmid: job.inputs.vmid,
    name: job.inputs.name,
    identity: job.identity,
    urn: job.ctx.urn,
    os: job.inputs.os,
    endpoint: job.conn.endpoint,
    nameMax: LIMITS.nameMax,
    journal,
  };
}

/** This resource's VMs among `vms`, oldest install first. */
export function ownVms(vms: VmEntry[], c: Claim): Own[] {
  const own: Own[] = [];
  for (const vm of vms) {
    const marked = c.identity && c.urn ? readStackName(vm.name, vm.vmid, c.identity, c.urn, c.nameMax) : undefined;
    if (marked) own.push({ entry: vm, startedAt: marked.startedAt, evidence: "mark" });
    else if (c.journal?.vmid === vm.vmid && vm.name === realName(c.journal.name, vm.vmid)) {
      own.push({ entry: vm, startedAt: c.journal.startedAt, evidence: "journal" });
    }
  }
  return own.sort((a, b) => a.startedAt - b.startedAt || a.entry.vmid - b.entry.vmid);
}

/** The list before an install, read for evidence. */
export function beforeInstall(vms: VmEntry[], c: Claim): BeforeInstall {
  const own = ownVms(vms, c).filter((o) => c.vmid === undefined || o.entry.vmid === c.vmid);
  const taken = c.vmid === undefined ? undefined : vms.find((vm) => vm.vmid === c.vmid);
  if (taken && own.length === 0) return { kind: "refuse", why: takenWhy(c, taken) };
  const first = own[0];
  if (first === undefined) return c.journal ? { kind: "pending", journal: c.journal } : { kind: "install" };
  if (first.entry.os !== "" && first.entry.os !== c.os) {
    return {
      kind: "refuse",
      why: `VM ${vmLabel(first.entry.vmid, first.entry.name)} was left by an interrupted create of this resource, but it runs ${first.entry.os}, not ${c.os}; remove it on the server or declare os "${first.entry.os}"`,
    };
  }
  return { kind: "interrupted", own: first, leftovers: own.slice(1) };
}

/** A pinned VMID held by a VM with no evidence of being this resource's: refused, with the one way in when it is. */
function takenWhy(c: Claim, taken: VmEntry): string {
  const urn = c.urn ? `'${c.urn}=${taken.vmid}'` : `'<urn>=${taken.vmid}'`;
  const stack = c.urn ? ` --stack ${c.urn.split("::")[0]!.replace(/^urn:pulumi:/, "")}` : "";
  return (
    `vmid ${taken.vmid} is already in use on ${c.endpoint} by VM "${taken.name}" (node ${taken.node}). ` +
    "If an interrupted `pulumi up` of this stack left it (the engine lists this resource under pending operations), " +
    `record it with \`npx go-pve-qemu-pulumi recover${stack} --adopt ${urn}\`, then run \`pulumi up\` again; ` +
    "if it is another VM, pin another vmid or omit it to let the server pick one"
  );
}
