// Reading the cluster: the server's nodes and VMs from one list, in the
// provider's names and units. Plain functions, no Pulumi: the data sources
// (provider/data) and discover (provider/discover) both stand on them.
export { listServer, readCluster } from "./read";
export type { Cluster } from "./read";
export type { NodeInfo } from "./nodes";
export type { VmInfo } from "./vms";
