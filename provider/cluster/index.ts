// Reading the cluster: the server's nodes and VMs from one list, in the
// provider's names and units. Plain functions, no Pulumi: the data sources
// and discover both stand on them.
export { listServer, readCluster } from "./cluster-read";
export type { Cluster } from "./cluster-read";
export { NodeInfoSchema } from "./nodes";
export type { NodeInfo } from "./nodes";
export { VmInfoSchema } from "./vms";
export type { VmInfo } from "./vms";
