// A node of the cluster as the data sources give it: the list's `cluster`
// entry, with its percentages turned into GiB so that placement code compares
// plain amounts.
import { z } from "zod";
import type { NodeEntry } from "../client";

// Each description is zod metadata, which the package schema gives getNodes's
// result; the JSDoc repeats it for editors (the schema script's --check holds
// the two equal).
export const NodeInfoSchema = z
  .object({
    /** The node's name, as `Vm`'s `node` input takes it. */
    name: z.string().meta({ description: "The node's name, as `Vm`'s `node` input takes it." }),
    /** The node is online. */
    running: z.boolean().meta({ description: "The node is online." }),
    /** Its CPU cores. */
    cores: z.number().int().meta({ description: "Its CPU cores." }),
    /** Its memory, GiB. */
    memoryGb: z.number().meta({ description: "Its memory, GiB." }),
    /** Memory its VMs use now, GiB. */
    memoryUsedGb: z.number().meta({ description: "Memory its VMs use now, GiB." }),
    /** memoryGb - memoryUsedGb. */
    memoryFreeGb: z.number().meta({ description: "memoryGb - memoryUsedGb." }),
    /** Its disk, GiB. */
    diskGb: z.number().meta({ description: "Its disk, GiB." }),
    /**
     * It is the server's own node (its MAIN_NODE), where every install creates
     * the VM before migrating it to `node`. Known once an install on this
     * machine showed it; absent until then (the server's list does not say).
     */
    serverNode: z.boolean().optional().meta({
      description:
        "It is the server's own node (its MAIN_NODE), where every install creates the VM before migrating it to `node`. Known once an install on this machine showed it; absent until then (the server's list does not say).",
    }),
  })
  .meta({ title: "NodeInfo" });
export type NodeInfo = z.infer<typeof NodeInfoSchema>;

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
