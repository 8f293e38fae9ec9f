// The VMs that given stacks hold, read from their `pulumi stack export`.
//
// A Vm keeps its connection as a secret, so an export made without
// --show-secrets does not say which server a VM lives on. Such a VM is taken
// to be on the server discovered: leaving out a VM that another server holds
// under the same VMID costs a line in the report, while adopting one that
// another stack manages would let two stacks destroy the same VM.
import * as fs from "node:fs";
import { z } from "zod";
import { DiscoverOptionError } from "./discover-option-error";
import { DYNAMIC_VM_TYPE } from "../tokens";

/** The Vm resource's type token in state. */
const VM_TYPE = DYNAMIC_VM_TYPE;
/** Pulumi's mark of a secret value in an export: {"4dabf1...": "1b4706...", "plaintext" | "ciphertext": ...}. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

const ResourceSchema = z.looseObject({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).nullish(),
  outputs: z.record(z.string(), z.unknown()).nullish(),
});
type ExportedResource = z.infer<typeof ResourceSchema>;

const StackExportSchema = z.looseObject({
  version: z.number(),
  deployment: z.looseObject({
    resources: z.array(ResourceSchema).nullish(),
    pending_operations: z.array(z.looseObject({ resource: ResourceSchema })).nullish(),
  }),
});

/** A VM a stack holds (or is creating: a pending operation of an interrupted deployment). */
export interface HeldVm {
  /** "project/stack" */
  stack: string;
  resourceName: string;
  vmid?: number;
  /** The name input, for a pending create whose VMID is not known yet. */
  name?: string;
  /** Its server, when the export says it in clear. */
  endpoint?: string;
}

/** Every VM the given exports hold. `source` is a file path or an export itself. */
export function heldVms(sources: readonly unknown[]): HeldVm[] {
  return sources.flatMap((source, i) => {
    const { value, label } = load(source, i);
    const parsed = StackExportSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` (${issue.path.join(".")}: ${issue.message})` : "";
      throw new DiscoverOptionError("excludeStackExports", label, `is not a Pulumi stack export${where}`);
    }
    const { resources, pending_operations: pending } = parsed.data.deployment;
    const all = [...(resources ?? []), ...(pending ?? []).map((op) => op.resource)];
    return all.filter((r) => r.type === VM_TYPE).map(heldOf);
  });
}

function load(source: unknown, index: number): { value: unknown; label: string } {
  if (typeof source !== "string") return { value: source, label: `[${index}]` };
  let text: string;
  try {
    text = fs.readFileSync(source, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new DiscoverOptionError("excludeStackExports", source, `cannot be read (${why})`, { cause: err });
  }
  try {
    return { value: JSON.parse(text), label: source };
  } catch (err) {
    throw new DiscoverOptionError(
      "excludeStackExports",
      source,
      `is not JSON (${(err as Error).message}); give the output of \`pulumi stack export\``,
      { cause: err },
    );
  }
}

function heldOf(r: ExportedResource): HeldVm {
  // urn:pulumi:<stack>::<project>::<type>::<name>
  const [head = "", project = "", , resourceName = ""] = r.urn.split("::");
  const stack = `${project}/${head.replace(/^urn:pulumi:/, "")}`;
  const outputs = r.outputs ?? {};
  const inputs = r.inputs ?? {};
  const id = r.id !== undefined && /^\d+$/.test(r.id) ? Number(r.id) : undefined;
  const vmid = integer(outputs.vmid) ?? integer(id) ?? integer(inputs.vmid);
  const name = typeof inputs.name === "string" ? inputs.name : undefined;
  const endpoint = endpointOf(clear(outputs.connection)) ?? endpointOf(clear(inputs.connection));
  return { stack, resourceName, vmid, name, endpoint };
}

function integer(v: unknown): number | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) ? v : undefined;
}

/** A value as the export has it: a secret's plaintext when shown, undefined when encrypted. */
function clear(v: unknown): unknown {
  if (v === null || typeof v !== "object" || !(SECRET_SIG in v)) return v;
  const plaintext = (v as { plaintext?: unknown }).plaintext;
  if (typeof plaintext !== "string") return undefined;
  try {
    return JSON.parse(plaintext);
  } catch {
    return undefined;
  }
}

function endpointOf(conn: unknown): string | undefined {
  const endpoint = (conn as { endpoint?: unknown } | null | undefined)?.endpoint;
  return typeof endpoint === "string" && endpoint !== "" ? endpoint : undefined;
}
