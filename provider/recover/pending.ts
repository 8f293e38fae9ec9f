// The pending creates of Vm resources in a stack's exported deployment
// (`pulumi stack export --show-secrets`): what an interrupted `pulumi up`
// began creating, with the inputs it began with. Pulumi keeps a pending
// create until it is resolved; these inputs are the evidence that this stack
// set out to make that VM.
import { z } from "zod";
import { DYNAMIC_VM_TYPE, VM_TOKEN } from "../tokens";

/** A Vm through either way in: the dynamic provider's, the resource plugin's. */
const VM_TYPES: ReadonlySet<string> = new Set([DYNAMIC_VM_TYPE, VM_TOKEN]);

/** A secret in an export with its secrets shown: `{ <signature>: ..., plaintext: "<JSON>" }`. */
const Shown = z.union([
  z.string(),
  z.object({ plaintext: z.string() }).transform((s): unknown => JSON.parse(s.plaintext)),
]);

const InputsSchema = z
  .object({
    name: z.string().optional(),
    vmid: z.number().int().optional(),
    os: z.string().optional(),
    connection: z.unknown().optional(),
    __stackIdentity: Shown.optional(),
  })
  .loose();

const DeploymentSchema = z.object({
  deployment: z.object({
    resources: z.array(z.object({ urn: z.string(), type: z.string(), id: z.string().optional() }).loose()).default([]),
    pending_operations: z
      .array(
        z.object({
          type: z.string(),
          resource: z.object({ urn: z.string(), type: z.string(), inputs: z.unknown().optional() }).loose(),
        }),
      )
      .default([]),
  }),
});

export interface PendingVm {
  urn: string;
  /** the name the user gave (or the one an earlier release derived), if any */
  name?: string;
  vmid?: number;
  os?: string;
  /** the stack's identity the create began with (none for a create of a release before it) */
  identity?: string;
  /** the resource's own endpoint, if its connection names one */
  endpoint?: string;
}

export interface StackRecord {
  pending: PendingVm[];
  /** URNs of the Vm resources in state */
  inState: Set<string>;
  /** VMIDs of the Vm resources in state */
  vmidsInState: Set<number>;
}

/** The pending creates of Vm resources, and the Vm resources already in state. */
export function readStackRecord(exported: unknown): StackRecord {
  const { deployment } = DeploymentSchema.parse(exported);
  const vms = deployment.resources.filter((r) => VM_TYPES.has(r.type));
  const pending = deployment.pending_operations
    .filter((op) => op.type === "creating" && VM_TYPES.has(op.resource.type))
    .map((op): PendingVm => {
      const inputs = InputsSchema.safeParse(op.resource.inputs ?? {});
      const i = inputs.success ? inputs.data : {};
      const identity = typeof i.__stackIdentity === "string" ? i.__stackIdentity : undefined;
      const endpoint = (i.connection as { endpoint?: unknown } | undefined)?.endpoint;
      return {
        urn: op.resource.urn,
        ...(i.name !== undefined ? { name: i.name } : {}),
        ...(i.vmid !== undefined ? { vmid: i.vmid } : {}),
        ...(i.os !== undefined ? { os: i.os } : {}),
        ...(identity ? { identity } : {}),
        ...(typeof endpoint === "string" ? { endpoint } : {}),
      };
    });
  return {
    pending,
    inState: new Set(vms.map((r) => r.urn)),
    vmidsInState: new Set(vms.flatMap((r) => (r.id && /^\d+$/.test(r.id) ? [Number(r.id)] : []))),
  };
}
