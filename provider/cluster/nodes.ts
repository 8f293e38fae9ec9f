// A node of the cluster as the data sources give it: the list's `cluster`
// entry, with its percentages turned into GiB so that placement code compares
// plain amounts.
import type { NodeEntry } from "../client";

export interface NodeInfo {
  /** The node's name, as `Vm`'s `node` input takes it. */
  name: string;
  /** The node is online. */
  running: boolean;
  /** Its CPU cores. */
  cores: number;
  /** Its memory, GiB. */
  memoryGb: number;
  /** Memory its VMs use now, GiB. */
  memoryUsedGb: number;
  /** memoryGb - memoryUsedGb. */
  memoryFreeGb: number;
  /** Its disk, GiB. */
  diskGb: number;
  /**
   * It is the server's own node (its MAIN_NODE), where every install creates
   * the VM before migrating it to `node`. Known once an install on this
   * machine showed it; absent until then (the server's list does not say).
   */
  serverNode?: boolean;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The nodes of a list, by name. An entry without a name (the server makes one
 * for VMs on a node its cluster query did not return) is no node to place on.
 * A node that does not say whether it runs is taken as running: the cluster
 * lists it. `serverNode`, when known, marks the server's own node.
 */
export function nodesOf(entries: readonly NodeEntry[], serverNode?: string): NodeInfo[] {
  const out: NodeInfo[] = [];
  for (const entry of entries) {
    const name = entry.node ?? entry.name ?? "";
    if (name === "") continue;
    const memoryGb = entry.max_memory ?? 0;
    const memoryUsedGb = round2((memoryGb * (entry.memory_used ?? 0)) / 100);
    out.push({
      name,
      running: entry.running ?? true,
      cores: entry.max_cpu ?? 0,
      memoryGb,
      memoryUsedGb,
      memoryFreeGb: round2(memoryGb - memoryUsedGb),
      diskGb: entry.disk ?? 0,
      ...(serverNode !== undefined ? { serverNode: name === serverNode } : {}),
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
