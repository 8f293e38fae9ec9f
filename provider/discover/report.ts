// What discover found, as lines for a person: one line per VM (adopted, with
// what its declaration says only approximately; or left out, and why), then
// the counts.
import type { AdoptedVm, Discovery, SkippedVm } from "./discovery";

export function reportLines(d: Omit<Discovery, "report" | "program" | "importFile">, listed: number): string[] {
  const lines = [`the go-pve-qemu server at ${d.endpoint} lists ${listed} VM${listed === 1 ? "" : "s"}`];
  for (const vm of d.adopted) lines.push(`  adopt         ${adoptedLine(vm)}`);
  for (const vm of d.held) lines.push(`  held          ${skippedLine(vm)}`);
  for (const vm of d.disabled) lines.push(`  disabled      ${skippedLine(vm)}`);
  for (const vm of d.undeclared) lines.push(`  not declared  ${skippedLine(vm)}`);
  lines.push(
    `${d.adopted.length} to adopt, ${d.held.length} held by the stacks given, ` +
      `${d.disabled.length} protected by .go_qemu_disabled, ${d.undeclared.length} not declared`,
  );
  if (d.adopted.length > 0) {
    lines.push(
      "not known exactly, for every VM: the version (the server keeps none) and memory and disk " +
        "(whole GiB in the list); see each VM's comment in the program",
    );
  }
  return lines;
}

function label(vm: { vmid: number; vmName: string }): string {
  return vm.vmName === String(vm.vmid) ? String(vm.vmid) : `${vm.vmName} (${vm.vmid})`;
}

function adoptedLine(vm: AdoptedVm): string {
  return `${label(vm)} as ${JSON.stringify(vm.resourceName)}: ${vm.notes.join("; ")}`;
}

function skippedLine(vm: SkippedVm): string {
  return `${label(vm)}: ${vm.reasons.join("; ")}`;
}
