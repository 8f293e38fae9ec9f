// go-pve-qemu for Pulumi: declare Proxmox QEMU VMs served by go-pve-qemu.
export { Vm } from "./resource/vm";
export type { VmArgs, VmConnectionArgs } from "./resource/vm";
