// The data sources of the provider: the cluster read into Pulumi outputs
// (getNodes, getVms), and placement helpers over their answers. This is
// Pulumi-facing glue; the reading is provider/cluster.
export { getNodes, getVms } from "./sources";
export type { ClusterArgs } from "./sources";
export { byFreeMemory, pickEmptiest } from "./pick";
export type { NodeInfo, VmInfo } from "../cluster";
