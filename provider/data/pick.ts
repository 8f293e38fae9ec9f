// Placement helpers over getNodes()'s answer: plain functions, so a program
// writes `node: getNodes().apply(pickEmptiest)`.
import type { NodeInfo } from "../cluster";

/**
 * The running nodes, the one with the most free memory first (ties by name).
 * Throws when none runs: a VM placed on a node that is down fails at install.
 */
export function byFreeMemory(nodes: readonly NodeInfo[]): NodeInfo[] {
  const running = nodes.filter((n) => n.running);
  if (running.length === 0) {
    const all = nodes.map((n) => n.name).join(", ") || "none";
    throw new Error(`no running node to place a VM on (the cluster's nodes: ${all})`);
  }
  return [...running].sort((a, b) => b.memoryFreeGb - a.memoryFreeGb || (a.name < b.name ? -1 : 1));
}

/** The name of the running node with the most free memory. */
export function pickEmptiest(nodes: readonly NodeInfo[]): string {
  return byFreeMemory(nodes)[0]!.name;
}
