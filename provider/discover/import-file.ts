// Pulumi's bulk import file (`pulumi import --file`) for the VMs discover
// declares, so that a program in any language can take them in: the engine
// reads each VM through the resource plugin and writes its declaration in
// the project's language. The VMs left out (held, protected, not declarable
// as they are) stay out for the reasons the report gives: importing one
// would fail the same check, or take a VM another stack holds.
import type { AdoptedVm, ImportFile } from "./discovery";
import { VM_TOKEN } from "../tokens";

/** The resource plugin's Vm, as `pulumi import` names its type. */
const IMPORT_VM_TYPE = VM_TOKEN;

export function importFileOf(adopted: readonly AdoptedVm[]): ImportFile {
  const byVmid = [...adopted].sort((a, b) => a.vmid - b.vmid);
  return { resources: byVmid.map((vm) => ({ type: IMPORT_VM_TYPE, name: vm.resourceName, id: String(vm.vmid) })) };
}
