// go-pve-qemu for Pulumi: declare Proxmox QEMU VMs served by go-pve-qemu.
// The Node.js check comes first: it must run before anything loads undici.
import "./node-version";
export { Vm } from "./resource/vm";
export type { VmArgs, VmConnectionArgs } from "./resource/vm";
// The data sources: the cluster's nodes and VMs as outputs, and placement over them.
export { byFreeMemory, getNodes, getVms, pickEmptiest } from "./data";
export type { ClusterArgs, NodeInfo, VmInfo } from "./data";
