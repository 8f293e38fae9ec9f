// The installs this machine has in flight, on disk. A deployment killed
// mid-install (kill -9, a second Ctrl-C) never tells Pulumi's state which VMID
// the server gave the install, and a VM with a name the user chose carries no
// mark of its own; but the provider learned the VMID within seconds, and
// wrote it here. The next create of the same resource of the same stack (its
// entry is keyed by the stack's identity and the URN, which no other stack
// shares) finds the entry, and with it the VM and when its install began:
// evidence that this stack made it, where the name alone is none.
//
// An entry lives from just before the install request to the moment the
// create's outcome is handed back; a create that is cancelled keeps it (the
// server carries on). It is local: a new CI runner has none, which is what
// `go-pve-qemu-pulumi recover` (Pulumi's pending creates) is for.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { PHASES } from "../../client";

const EntrySchema = z.object({
  identity: z.string(),
  urn: z.string(),
  endpoint: z.string(),
  /** the name sent to the server (the server names the VM `<name>-<vmid>`) */
  name: z.string().optional(),
  vmid: z.number().int().optional(),
  /** when the install request was sent, ms */
  startedAt: z.number(),
  os: z.string(),
  /** the IP the install's stream assigned (its step "assigning IP"): a takeover's output before anything else shows it */
  ip: z.string().optional(),
  /** the furthest phase the install's stream had shown, and when (what the server said before a kill) */
  reached: z.object({ phase: z.enum(PHASES), at: z.number() }).optional(),
});
export type JournalEntry = z.infer<typeof EntrySchema>;

export interface InstallJournal {
  get(identity: string, urn: string): Promise<JournalEntry | undefined>;
  put(entry: JournalEntry): Promise<void>;
  remove(identity: string, urn: string): Promise<void>;
}

/** Entries older than this are dropped once per process, at its first write: no install lasts that long. */
const PRUNE_AFTER_MS = 7 * 24 * 3_600_000;

/** GO_PVE_QEMU_JOURNAL_DIR, else the user's cache folder. */
export function defaultJournalDir(env: NodeJS.ProcessEnv): string {
  if (env.GO_PVE_QEMU_JOURNAL_DIR) return env.GO_PVE_QEMU_JOURNAL_DIR;
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(cache, "go-pve-qemu-pulumi", "installs");
}

/**
 * The journal in `dir`: one small JSON file per install in flight, written
 * whole (temporary file, then rename: a kill at any moment leaves the old
 * entry or the new one, never half of one). A fleet's creates write it on
 * the path where they wait most, so a write costs two calls and nothing that
 * grows with the folder: the folder is made when a write finds it missing,
 * old entries are pruned once per journal (one per process), and an entry
 * the same as the one this journal last wrote there is not written again.
 * The calls are synchronous: on a local disk a write and its rename take
 * about 0.1 ms, several times less CPU than the same calls through the
 * thread pool, and an install writes a few times at most.
 */
export function fileJournal(dir: string): InstallJournal {
  // Each create asks for its file a few times (the check, the create, each write, the removal): hashed once.
  const files = new Map<string, string>();
  const file = (identity: string, urn: string): string => {
    const key = `${identity}\n${urn}`;
    let f = files.get(key);
    if (f === undefined) {
      f = path.join(dir, `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`);
      files.set(key, f);
    }
    return f;
  };
  /** What this journal last wrote to each file (removed entries are forgotten). */
  const written = new Map<string, string>();
  let pruned = false;
  return {
    async get(identity, urn) {
      let text: string;
      try {
        text = fs.readFileSync(file(identity, urn), "utf8");
      } catch {
        return undefined;
      }
      const parsed = EntrySchema.safeParse(safeJson(text));
      // A damaged entry, or another's that collides by hash, is no evidence.
      return parsed.success && parsed.data.identity === identity && parsed.data.urn === urn ? parsed.data : undefined;
    },
    async put(entry) {
      const target = file(entry.identity, entry.urn);
      // The entry is built by the lifecycle, typed: the schema guards what is read back, not this.
      const text = JSON.stringify(entry);
      if (written.get(target) === text) return;
      writeWhole(dir, target, text);
      written.set(target, text);
      if (!pruned) {
        pruned = true;
        prune(dir, Date.now());
      }
    },
    async remove(identity, urn) {
      const target = file(identity, urn);
      written.delete(target);
      // One call (rm would stat first); an entry already gone is removed.
      try {
        fs.unlinkSync(target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    },
  };
}

/**
 * `text` as `target`'s whole content (a temporary file, then a rename: a kill leaves the old file
 * or the new one); the folder is made when it is missing (the first write, or removed since).
 */
export function writeWhole(dir: string, target: string, text: string): void {
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, text, { mode: 0o600 });
  }
  fs.renameSync(tmp, target);
}

/** Drops the entries (and temporary files) older than a week; whatever cannot be read or removed is left. */
function prune(dir: string, now: number): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    try {
      if (now - fs.statSync(p).mtimeMs > PRUNE_AFTER_MS) fs.rmSync(p, { force: true });
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
