// Wire shapes of go-pve-qemu: zod schemas for what the client reads (every
// TypeScript type of the client layer is inferred from here, so a shape is
// written down once), and the one body it only writes.
import { z } from "zod";

/** Operating systems and the versions the server can install. */
export const SUPPORTED_VERSIONS = {
  debian: ["11", "12", "13"],
  ubuntu: ["20.04", "22.04", "24.04"],
  rockylinux: ["8", "9", "10"],
} as const;

export const OsSchema = z.enum(["debian", "ubuntu", "rockylinux"]);
export type Os = z.infer<typeof OsSchema>;

/**
 * Body of POST /api/vm/install. Field names are the server's. Only ever sent,
 * never parsed, so it needs no schema.
 */
export type InstallRequest = {
  os: Os;
  version: string;
  name?: string;
  /** integer */
  id?: number;
  node?: string;
  /** integer */
  cpu?: number;
  /** integer, MB */
  ram?: number;
  /** whole GiB with a G suffix, e.g. "32G" */
  disk?: string;
  user?: string;
  passwd?: string;
  pubkey?: string;
};

/** One VM in GET /api/vm/list. memory, memory_used and disk are whole GiB, truncated. */
const VmEntrySchema = z.object({
  vmid: z.number().int(),
  name: z.string(),
  os: z.string(),
  running: z.boolean(),
  /** "-" for a VM in the server's disabled list. */
  node: z.string(),
  cpu: z.number(),
  disk: z.number(),
  memory: z.number(),
  memory_used: z.number().optional(),
});
export type VmEntry = z.infer<typeof VmEntrySchema>;

/**
 * One node in GET /api/vm/list's `cluster`. Capacities are the node's own
 * (`max_cpu` cores, `max_memory` and `disk` in GiB, two decimals); `cpu`,
 * `memory` and `memory_used` are percentages of that capacity, summed over
 * the node's VMs (assigned vCPUs, assigned memory, memory in use). Every field
 * is optional (the docs' shape names the node only), and a figure that is
 * missing or malformed reads as absent: the list is what every VM operation
 * reads first, and a node's figures must never fail it.
 */
const figure = z.number().optional().catch(undefined);
const NodeEntrySchema = z
  .object({
    node: z.string().optional(),
    name: z.string().optional(),
    max_cpu: figure,
    max_memory: figure,
    cpu: figure,
    memory: figure,
    memory_used: figure,
    disk: figure,
    running: z.boolean().optional().catch(undefined),
  })
  .passthrough();
export type NodeEntry = z.infer<typeof NodeEntrySchema>;

/**
 * GET /api/vm/list as the code sends it ({count, list, cluster, data}) or as
 * the docs describe it ({vms, nodes}); both normalise to {vms, nodes}.
 */
export const ListResponseSchema = z
  .object({
    count: z.number().int().optional(),
    list: z.array(VmEntrySchema).nullish(),
    data: z.array(VmEntrySchema).nullish(),
    vms: z.array(VmEntrySchema).nullish(),
    cluster: z.array(NodeEntrySchema).nullish(),
    nodes: z.array(NodeEntrySchema).nullish(),
  })
  .transform((raw) => ({
    vms: raw.list ?? raw.vms ?? raw.data ?? [],
    nodes: raw.cluster ?? raw.nodes ?? [],
  }));
export type VmList = z.output<typeof ListResponseSchema>;

const EventStatusSchema = z.enum(["processing", "success", "info", "error"]);

/** A regular stream event: data: {"step":"...","status":"...","message":"..."} */
export const StepEventSchema = z.object({
  step: z.string(),
  status: EventStatusSchema,
  message: z.string(),
});
export type StepEvent = z.infer<typeof StepEventSchema>;

/** The bare pre-check refusal: data: {"message": "..."} with no step/status. */
export const BareMessageSchema = z.object({ message: z.string() }).strict();

/**
 * An output frame of SSE services that stream command output (`event: stdout` / `event: stderr`):
 * {"encoding":"base64"|"ascii","value":"..."}; other keys (spid, ...) are allowed.
 */
export const OutputChunkSchema = z.object({
  encoding: z.enum(["base64", "ascii", "utf-8", "utf8"]).optional(),
  value: z.string(),
});

/** A JSON error body: go-pve-qemu's {"success":false,"message":..} or {"error":..}, or the common {"error":{"message":..}}. */
export const ErrorBodySchema = z.object({
  message: z.string().optional(),
  error: z.union([z.string(), z.object({ message: z.string() })]).optional(),
});

/**
 * go-pve-qemu's own refusal body (model.Response with success false): what its
 * install handler answers when the request body does not bind.
 */
export const RefusalBodySchema = z.object({ success: z.literal(false), message: z.string() });

/** GET /api/vm/:id/status: one word from `qm status` ("running", "stopped", ...). */
export const PowerStatusSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, "a single status word");

/** GET /api/health and the plain endpoints answer the text `ok`. */
export const OkTextSchema = z.string().regex(/^ok$/i, "the text ok");
