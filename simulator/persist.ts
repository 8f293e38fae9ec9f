// The state file: what a real server keeps on disk between runs (the cluster's
// VMs, ~/.ssh, the /tmp image cache), as one JSON document written atomically
// (temp file + rename) so a crash or a concurrent reader never sees half of it.
import * as fs from "node:fs";
import * as path from "node:path";
import { z } from "zod";
import { describeZodError } from "./schemas";

export const FILE_FORMAT = "go-pve-qemu-simulator/1";

const StoredVmSchema = z.strictObject({
  vmid: z.number().int(),
  name: z.string(),
  requestedName: z.string(),
  os: z.string(),
  version: z.string(),
  node: z.string(),
  cpu: z.number().int(),
  memoryMb: z.number().int(),
  memoryUsedMb: z.number().nullable(),
  diskBytes: z.number().int().nonnegative(),
  status: z.enum(["running", "stopped"]),
  user: z.string(),
  ip: z.string(),
});
export type StoredVm = z.infer<typeof StoredVmSchema>;

const StateFileSchema = z.strictObject({
  format: z.literal(FILE_FORMAT),
  vms: z.array(StoredVmSchema),
  sshKey: z.boolean(),
  images: z.array(z.string()),
});
export type StateFile = z.infer<typeof StateFileSchema>;

/** The stored state, or null when the file does not exist yet. */
export function loadState(file: string): StateFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`simulator state file ${file} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = StateFileSchema.safeParse(json);
  if (!parsed.success) throw describeZodError(`simulator state file ${file} is not valid`, parsed.error);
  return parsed.data;
}

let counter = 0;

export function saveState(file: string, state: StateFile): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  // Unique per process and write, so two simulators sharing a file never
  // rename each other's half-written temp file.
  const tmp = `${file}.${process.pid}.${++counter}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n");
  fs.renameSync(tmp, file);
}
