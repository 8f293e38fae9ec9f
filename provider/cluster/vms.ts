// A VM as the data sources give it: the list's entry under the provider's
// names, with the disabled mark made explicit.
import type { VmEntry } from "../client";

export interface VmInfo {
  vmid: number;
  /** The server's name of the VM: `<name>-<vmid>`, or `<vmid>`. */
  name: string;
  /** Its Proxmox tag: the OS for VMs the server installed, "" when it has none, "-" when disabled. */
  os: string;
  running: boolean;
  /** Its node; "-" when disabled. */
  node: string;
  cpu: number;
  /** Whole GiB, truncated, as the list gives it (2048 MB and 3000 MB both read 2). */
  memoryGb: number;
  /** Whole GiB, truncated. */
  memoryUsedGb: number;
  /** Whole GiB, truncated. */
  diskGb: number;
  /** In the server's `.go_qemu_disabled` file: the server refuses to control it and lists no real values for it. */
  disabled: boolean;
}

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
