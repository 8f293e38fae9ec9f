// Which node is the server's own (its MAIN_NODE), as this machine learned it.
// The server creates every VM there and migrates it to `node` afterwards, and
// Proxmox refuses a migration to the node a VM is on: an install that names
// the server's own node must leave `node` out. The list does not say which
// node it is; an install does:
// - one that named a node and was refused with "target is local node": that
//   node is the server's;
// - one sent without `node` that completed: the node the list then shows.
// Kept beside the install journal, one small file per server (the program's
// data sources read it too), and dropped with the journal's old entries: a
// server reconfigured since is learned again by its next install.
import { createHash } from "node:crypto";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { z } from "zod";
import { endpointKey } from "./connection";
import { writeWhole } from "./journal";

const KnownSchema = z.object({
  endpoint: z.string(),
  node: z.string().min(1),
  /** what showed it, for whoever reads the file */
  how: z.string(),
  at: z.number(),
});

export interface ServerNodes {
  /** The server's own node, when known. */
  get(endpoint: string): Promise<string | undefined>;
  /** What an install showed; a failure to write is no failure of the install. */
  learn(endpoint: string, node: string, how: string): Promise<void>;
}

/** The file-backed record in `dir` (the journal's folder), with what this process learned kept in memory. */
export function fileServerNodes(dir: string): ServerNodes {
  const file = (endpoint: string): string =>
    path.join(dir, `server-${createHash("sha256").update(endpoint).digest("hex").slice(0, 32)}.json`);
  const learned = new Map<string, string>();
  // What this process wrote, per server. Every install without `node` shows the node again, and a
  // fleet's 100 installs would write the same file 100 times: once per process and node is enough,
  // since the record is dropped a week after its last write and a process lives for one deployment.
  const written = new Map<string, string>();
  return {
    async get(at) {
      const endpoint = endpointKey(at);
      const mine = learned.get(endpoint);
      if (mine !== undefined) return mine;
      const text = await fs.readFile(file(endpoint), "utf8").catch(() => undefined);
      if (text === undefined) return undefined;
      const parsed = KnownSchema.safeParse(safeJson(text));
      // A damaged file, or another server's that collides by hash, says nothing.
      return parsed.success && parsed.data.endpoint === endpoint ? parsed.data.node : undefined;
    },
    // async: a failed write (or a bad endpoint) rejects, and is never thrown at the caller.
    async learn(at, node, how) {
      const endpoint = endpointKey(at);
      learned.set(endpoint, node);
      if (written.get(endpoint) === node) return;
      writeWhole(dir, file(endpoint), JSON.stringify(KnownSchema.parse({ endpoint, node, how, at: Date.now() })));
      // Set only once written: a failed write is tried again by the next install that shows the node.
      written.set(endpoint, node);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
