// The program discover writes: one `Vm` per adopted VM with `adopt: true`,
// the VMs it could not declare as commented-out declarations with the
// reasons, and a header that says what the server could not tell. The text
// depends on the server's VMs alone (no date, VMs by VMID), so running
// discover again writes the same file for the same server.
import type { AdoptArgs, SkippedVm } from "./discovery";

interface Declaration {
  resourceName: string;
  vmid: number;
  vmName: string;
  args: Partial<AdoptArgs>;
  /** Comment on the declaration (what it says only approximately). */
  notes: string[];
  /** Set: written commented out, for these reasons. */
  reasons?: string[];
}

export interface ProgramParts {
  endpoint: string;
  declarations: Declaration[];
  held: SkippedVm[];
  disabled: SkippedVm[];
}

const ARG_ORDER = ["os", "version", "name", "vmid", "node", "cpu", "memoryMb", "diskGb", "running", "adopt"] as const;

export function renderProgram(parts: ProgramParts): string {
  const lines = [...header(parts), 'import { Vm } from "go-pve-qemu-pulumi";', "", "const vms = {"];
  for (const d of [...parts.declarations].sort((a, b) => a.vmid - b.vmid)) lines.push(...declaration(d));
  lines.push(
    "};",
    "",
    "/** The server's name of each adopted VM, by resource name (stack outputs when this file is the program). */",
    "export const adopted = Object.fromEntries(Object.entries(vms).map(([name, vm]) => [name, vm.vmName]));",
    "",
  );
  return lines.join("\n");
}

function header(parts: ProgramParts): string[] {
  const left = [
    ...parts.held.map((vm) => `${label(vm)}: ${vm.reasons.join("; ")}`),
    ...parts.disabled.map((vm) => `${label(vm)}: ${vm.reasons.join("; ")}`),
  ];
  return [
    `// The VMs of the go-pve-qemu server at ${parts.endpoint}, as \`go-pve-qemu-pulumi discover\` found`,
    "// them, declared with `adopt: true`: the first `pulumi up` records each VM as it is, with no",
    "// change on the server, and manages it from then on. Point the stack at that server first:",
    "//",
    `//   pulumi config set goPveQemu:endpoint ${parts.endpoint}`,
    "//",
    "// What the server's list does not tell:",
    "// - version: the server keeps no OS release. The newest one the provider installs for the",
    "//   VM's OS is written; it is not sent for an adopted VM, but it is recorded, and a later",
    "//   change replaces the VM. Write the release the VM runs before the first `pulumi up`.",
    "// - memoryMb, diskGb: the list gives whole GiB, truncated (3000 MB reads as 2 GiB); the",
    "//   VM may have up to 1 GiB more than written. Adopting compares the same figures: no change.",
    "// - user, password, sshPublicKey: not known and left out; none is compared for an adopted",
    "//   VM until the program sets it (a change then replaces the VM).",
    ...(left.length === 0 ? [] : ["//", "// Left out:", ...left.map((l) => `// - ${l}`)]),
    "",
  ];
}

function declaration(d: Declaration): string[] {
  const key = /^[A-Za-z_$][\w$]*$/.test(d.resourceName) ? d.resourceName : JSON.stringify(d.resourceName);
  const code = [
    `${key}: new Vm(${JSON.stringify(d.resourceName)}, {`,
    ...ARG_ORDER.filter((k) => d.args[k] !== undefined).map((k) => `  ${k}: ${JSON.stringify(d.args[k])},`),
    "}),",
  ];
  if (d.reasons !== undefined) {
    return [
      `  // ${label(d)} is not declared: adopting it as it is would change it or fail:`,
      ...d.reasons.map((r) => `  //   - ${r}`),
      ...code.map((l) => `  // ${l}`),
    ];
  }
  return [`  // ${label(d)}`, ...d.notes.map((n) => `  //   - ${n}`), ...code.map((l) => `  ${l}`)];
}

function label(vm: { vmid: number; vmName: string }): string {
  return vm.vmName === String(vm.vmid) ? String(vm.vmid) : `${vm.vmName} (${vm.vmid})`;
}
