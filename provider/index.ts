// go-pve-qemu for Pulumi: declare Proxmox QEMU VMs served by go-pve-qemu.
// The Node.js check comes first: it must run before anything loads undici.
import "./node-version";
export { Vm } from "./dynamic";
export type { VmArgs, VmConnectionArgs } from "./dynamic";
// The data sources: the cluster's nodes and VMs as outputs, and placement over them.
export { byFreeMemory, getNodes, getVms, pickEmptiest } from "./data";
export type { ClusterArgs, NodeInfo, VmInfo } from "./data";
// Bringing existing VMs in: the program that adopts a server's VMs (also `npx go-pve-qemu-pulumi discover`).
export { discover, DiscoverOptionError } from "./discover";
export type {
  AdoptArgs,
  AdoptedVm,
  DiscoverOption,
  DiscoverOptions,
  Discovery,
  ImportEntry,
  ImportFile,
  SkippedVm,
} from "./discover";
