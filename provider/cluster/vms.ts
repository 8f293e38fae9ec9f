// A VM as the data sources give it: the list's entry under the provider's
// names, with the disabled mark made explicit.
import { z } from "zod";
import type { VmEntry } from "../client";

// Each description is zod metadata, which the package schema gives getVms's
// result; the JSDoc repeats it for editors (the schema script's --check holds
// the two equal).
export const VmInfoSchema = z
  .object({
    /** The VMID. */
    vmid: z.number().int().meta({ description: "The VMID." }),
    /** The server's name of the VM: `<name>-<vmid>`, or `<vmid>`. */
    name: z.string().meta({ description: "The server's name of the VM: `<name>-<vmid>`, or `<vmid>`." }),
    /** Its Proxmox tag: the OS for VMs the server installed, "" when it has none, "-" when disabled. */
    os: z.string().meta({
      description: 'Its Proxmox tag: the OS for VMs the server installed, "" when it has none, "-" when disabled.',
    }),
    /** The VM runs. */
    running: z.boolean().meta({ description: "The VM runs." }),
    /** Its node; "-" when disabled. */
    node: z.string().meta({ description: 'Its node; "-" when disabled.' }),
    /** Its vCPUs. */
    cpu: z.number().int().meta({ description: "Its vCPUs." }),
    /** Whole GiB, truncated, as the list gives it (2048 MB and 3000 MB both read 2). */
    memoryGb: z
      .number()
      .int()
      .meta({ description: "Whole GiB, truncated, as the list gives it (2048 MB and 3000 MB both read 2)." }),
    /** Whole GiB, truncated. */
    memoryUsedGb: z.number().int().meta({ description: "Whole GiB, truncated." }),
    /** Whole GiB, truncated. */
    diskGb: z.number().int().meta({ description: "Whole GiB, truncated." }),
    /** In the server's `.go_qemu_disabled` file: the server refuses to control it and lists no real values for it. */
    disabled: z.boolean().meta({
      description:
        "In the server's `.go_qemu_disabled` file: the server refuses to control it and lists no real values for it.",
    }),
  })
  .meta({ title: "VmInfo" });
export type VmInfo = z.infer<typeof VmInfoSchema>;

export function vmsOf(entries: readonly VmEntry[]): VmInfo[] {
  return entries
    .map((vm) => ({
      vmid: vm.vmid,
      name: vm.name,
      os: vm.os,
      running: vm.running,
      node: vm.node,
      cpu: vm.cpu,
      memoryGb: vm.memory,
      memoryUsedGb: vm.memory_used ?? 0,
      diskGb: vm.disk,
      disabled: vm.node === "-",
    }))
    .sort((a, b) => a.vmid - b.vmid);
}
