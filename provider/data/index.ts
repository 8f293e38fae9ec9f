// The data sources of the provider: the cluster read into Pulumi outputs
// (getNodes, getVms), and placement helpers over their answers. This is the
// Pulumi-facing glue only: the reading itself (readCluster) is plain code,
// shared with discover.
export { getNodes, getVms } from "./sources";
export type { ClusterArgs } from "./sources";
export { byFreeMemory, pickEmptiest } from "./pick";
export type { NodeInfo, VmInfo } from "../cluster";
