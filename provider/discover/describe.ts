// One listed VM as a Vm declaration: read as adopt will read it (the
// lifecycle's own read without prior state, so what is written is what the
// first `up` compares with), then checked as `pulumi preview` will check it.
//
// What the list cannot tell is decided here:
// - version: the server keeps no OS release. The newest release the provider
//   installs for the VM's OS is written. For an adopted VM it is never sent
//   to the server and, with none on record, not compared: the first `up`
//   records it as written (a later change replaces the VM).
// - memory and disk: whole GiB, truncated. The list's figure is written (in
//   MB for memory); adopt reads the same figure, so it is no change. Memory
//   listed as 0 GiB (512 to 1023 MB) is written as 512, the server's floor
//   for an install without `ram`: adopt takes a declared size under 1 GiB
//   as the VM's, since the list cannot tell them apart.
// - user, password, SSH key, reboot triggers: not known, left out. For an
//   adopted VM none of them is compared until the program sets one.
// A VM that no declaration describes as it is (no OS tag, a size outside a
// Vm's bounds, a VMID outside 100..254) is not declared: adopting it would
// change it, or fail.
import { SUPPORTED_VERSIONS } from "../client";
import type { VmEntry } from "../client";
import { check, read } from "../lifecycle";
import type { LifecycleContext } from "../lifecycle";
import type { AdoptArgs } from "./discovery";

interface Described {
  vmid: number;
  vmName: string;
  /** The VM's name without the server's `-<vmid>`, whether or not a Vm's `name` takes it. */
  name?: string;
}

export type Description =
  | (Described & { kind: "adopt"; args: AdoptArgs; notes: string[] })
  | (Described & { kind: "undeclared"; args: Partial<AdoptArgs>; reasons: string[] });

/**
 * A name this provider gave a VM declared without one (`<base>-<8 hex>` as an
 * earlier release derived it from the URN, or `<base>-<8 hex mark>-<time>`,
 * the server appending `-<vmid>`): a stack of this provider installed it. At
 * least one of the eight is a letter, so that a date (`backup-20240101`) is
 * not taken for one; the few marks of digits alone go unnoticed, and that
 * stack's export is what leaves its VMs out in any case.
 */
const DERIVED = /-(?=[0-9]*[a-f])[0-9a-f]{8}(?:-[0-9a-z]{1,7})?$/;

export async function describeVm(entry: VmEntry, ctx: LifecycleContext): Promise<Description> {
  const { vmid, name: vmName } = entry;
  const found = await read(String(vmid), undefined, ctx);
  const seen = found?.inputs;
  if (seen === undefined) return { kind: "undeclared", vmid, vmName, args: {}, reasons: ["it was gone when read"] };
  const os = seen.os;
  const args: Partial<AdoptArgs> = {
    os,
    version: os === undefined ? undefined : SUPPORTED_VERSIONS[os].at(-1),
    name: seen.name,
    vmid,
    node: seen.node,
    cpu: seen.cpu,
    memoryMb: entry.memory === 0 && seen.memoryMb === 0 ? MIN_MEMORY_MB : seen.memoryMb,
    diskGb: seen.diskGb,
    running: seen.running,
    adopt: true,
  };
  const reasons: string[] = [];
  if (os === undefined) {
    reasons.push(
      `os: the list gives ${JSON.stringify(entry.os)}, not one of ${Object.keys(SUPPORTED_VERSIONS).join(", ")} ` +
        "(a VM the server did not install carries no OS tag); write the OS it runs",
    );
  }
  if (seen.name !== undefined && DERIVED.test(seen.name)) {
    reasons.push(
      "its name carries a Pulumi resource's hash: a stack of this provider installed it; " +
        "give that stack's export with it, or declare it by hand if no stack holds it any more",
    );
  }
  const notes = approximations(entry, args);
  if (args.name !== undefined && vmName !== `${args.name}-${vmid}`) {
    // Adopt checks a declared name as `<name>-<vmid>`, the way the server names the VMs it installs.
    notes.push(`no name: ${JSON.stringify(vmName)} is not <name>-${vmid}, so adopting it checks its VMID alone`);
    delete args.name;
  }
  for (const failure of check(undefined, args).failures) {
    // Said above, in the list's words (and no version without an OS).
    if (failure.property === "os" || (os === undefined && failure.property === "version")) continue;
    if (failure.property === "name") {
      // Adopt checks a declared name against the VM's; without one, the VMID alone says which VM.
      notes.push(`no name: ${failure.reason}`);
      delete args.name;
      continue;
    }
    reasons.push(failure.reason + listed(entry, failure.property));
  }
  const name = seen.name;
  for (const key of Object.keys(args) as (keyof AdoptArgs)[]) if (args[key] === undefined) delete args[key];
  if (reasons.length > 0) return { kind: "undeclared", vmid, vmName, name, args, reasons };
  return { kind: "adopt", vmid, vmName, name, args: args as AdoptArgs, notes };
}

/** The server's floor for memory, what an install without `ram` gets; below 1 GiB, the list shows 0. */
const MIN_MEMORY_MB = 512;

/** What the written declaration says more precisely than the server does. */
function approximations(entry: VmEntry, args: Partial<AdoptArgs>): string[] {
  const out: string[] = [];
  if (args.version !== undefined) out.push(`version ${args.version} assumed (the server keeps no OS release)`);
  out.push(`memory ${entry.memory} GiB and disk ${entry.disk} GiB as the list truncates them to whole GiB`);
  if (args.memoryMb === MIN_MEMORY_MB && entry.memory === 0) {
    out.push(
      "memoryMb: 512 written for memory the list gives as 0 GiB (512 to 1023 MB): the least the server gives, " +
        "and what an install without `ram` has; adopting takes it as the VM's, with no change",
    );
  }
  return out;
}

/** For a size out of a Vm's bounds: what the list said, since the figure written came from it. */
function listed(entry: VmEntry, property: string): string {
  if (property === "memoryMb") return ` (the list gives ${entry.memory} GiB, whole GiB truncated)`;
  if (property === "diskGb") return ` (the list gives ${entry.disk} GiB, whole GiB truncated)`;
  return "";
}
