// VMs placed by what the cluster has free, read from the server at preview:
//
//   db          on the node with the most free memory (getNodes() + pickEmptiest)
//   worker-0..N spread over the nodes, the emptiest first (byFreeMemory)
//
// The go-pve-qemu server installs every VM on its own node and then migrates
// it to `node`; Proxmox refuses a migration to the node the VM is already on,
// so an install cannot name the server's own node. Config `serverNode` (pve1)
// leaves it out of the choice.
//
// The nodes are read on every run, and the VMs they hold change what is free:
// `ignoreChanges: ["node"]` keeps each VM where it was first placed instead
// of migrating it whenever another node becomes the emptiest. A new VM (a
// higher workerCount) is placed by the cluster as it is then.
//
// Config (all optional): workerCount (2), serverNode (pve1), and
// goPveQemu:endpoint for the server.
import * as pulumi from "@pulumi/pulumi";
import { Vm, byFreeMemory, getNodes, getVms, pickEmptiest } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const workerCount = config.getNumber("workerCount", { min: 0, max: 20 }) ?? 2;
const serverNode = config.get("serverNode") ?? "pve1";

const candidates = getNodes().apply((nodes) => nodes.filter((n) => n.name !== serverNode));

// Placed once: a later run does not move it.
const placedOnce: pulumi.CustomResourceOptions = { ignoreChanges: ["node"] };

const db = new Vm(
  "db",
  { os: "debian", version: "12", name: "db", memoryMb: 4096, node: candidates.apply(pickEmptiest) },
  placedOnce,
);

const ranked = candidates.apply(byFreeMemory);
const workers: Vm[] = [];
for (let i = 0; i < workerCount; i++) {
  const node = ranked.apply((nodes) => nodes[i % nodes.length]!.name);
  workers.push(new Vm(`worker-${i}`, { os: "ubuntu", version: "24.04", name: `worker${i}`, node }, placedOnce));
}

/** What the program saw: each node's free memory, and how many VMs the server listed before this run. */
export const cluster = getNodes().apply((nodes) =>
  nodes.map(
    (n) => `${n.name}: ${n.memoryFreeGb} of ${n.memoryGb} GiB free, ${n.cores} cores${n.running ? "" : ", down"}`,
  ),
);
export const vmsBefore = getVms().apply((vms) => vms.length);
export const placement = {
  db: db.node,
  workers: workers.map((w) => w.node),
};
