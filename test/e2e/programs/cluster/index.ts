// The data sources in a program: the cluster's nodes and VMs as stack
// outputs, and (with config `place` true) one VM on the node with the most
// free memory. Config `clusterEndpoint` reads another server than the stack's.
import * as pulumi from "@pulumi/pulumi";
import { Vm, getNodes, getVms, pickEmptiest } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const endpoint = config.get("clusterEndpoint");
const args = endpoint === undefined ? {} : { connection: { endpoint } };

const nodes = getNodes(args);
export const nodeList = nodes;
export const vmList = getVms(args);
export const emptiest = nodes.apply(pickEmptiest);

export const placedNode = config.getBoolean("place")
  ? new Vm("placed", { os: "debian", version: "12", name: "placed", node: emptiest }).node
  : undefined;
