// VMs placed by what the cluster has free, read from the server at preview:
//
//   db          on the node with the most free memory (getNodes() + pickEmptiest)
//   worker-0..N spread over the nodes, the emptiest first (byFreeMemory)
//
// Any node may be chosen, the server's own too: the provider installs there
// without a migration (it learns which node that is from the first install;
// getNodes() then marks it `serverNode`).
//
// The nodes are read on every run, and the VMs they hold change what is free:
// `ignoreChanges: ["node"]` keeps each VM where it was first placed instead
// of migrating it whenever another node becomes the emptiest. A new VM (a
// higher workerCount) is placed by the cluster as it is then.
//
// Config (all optional): workerCount (2), and goPveQemu:endpoint for the server.
import * as pulumi from "@pulumi/pulumi";
import { Vm, byFreeMemory, getNodes, getVms, pickEmptiest } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const workerCount = config.getNumber("workerCount", { min: 0, max: 20 }) ?? 2;

const nodes = getNodes();

// Placed once: a later run does not move it.
const placedOnce: pulumi.CustomResourceOptions = { ignoreChanges: ["node"] };

const db = new Vm(
  "db",
  { os: "debian", version: "12", name: "db", memoryMb: 4096, node: nodes.apply(pickEmptiest) },
  placedOnce,
);

const ranked = nodes.apply(byFreeMemory);
const workers: Vm[] = [];
for (let i = 0; i < workerCount; i++) {
  const node = ranked.apply((nodes) => nodes[i % nodes.length]!.name);
  workers.push(new Vm(`worker-${i}`, { os: "ubuntu", version: "24.04", name: `worker${i}`, node }, placedOnce));
}

/** What the program saw: each node's free memory, and how many VMs the server listed before this run. */
export const cluster = nodes.apply((all) =>
  all.map(
    (n) =>
      `${n.name}: ${n.memoryFreeGb} of ${n.memoryGb} GiB free, ${n.cores} cores` +
      `${n.running ? "" : ", down"}${n.serverNode ? ", the server's own" : ""}`,
  ),
);
export const vmsBefore = getVms().apply((vms) => vms.length);
export const placement = {
  db: db.node,
  workers: workers.map((w) => w.node),
};
