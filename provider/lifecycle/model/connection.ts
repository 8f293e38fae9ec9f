// Where a VM is served from. A resource's own `connection` wins over the
// defaults (stack config, then environment, resolved by the glue). The
// resolved connection is stored in state, so refresh and delete keep talking
// to the server the VM was created on even if the defaults change later.
import { z } from "zod";
import { LifecycleError } from "./lifecycle-error";

const ConnectionSettingsSchema = z.object({
  endpoint: z.string().optional(),
  token: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  caCert: z.string().optional(),
});
/** The `connection` input, and the shape of the defaults. */
export type ConnectionSettings = z.infer<typeof ConnectionSettingsSchema>;
export type ConnectionDefaults = ConnectionSettings;

export const ResolvedConnectionSchema = ConnectionSettingsSchema.extend({ endpoint: z.string() });
export type ResolvedConnection = z.infer<typeof ResolvedConnectionSchema>;

export const NO_ENDPOINT_HELP =
  "no go-pve-qemu endpoint is set; set one of: the resource's connection.endpoint, " +
  "the stack config `pulumi config set goPveQemu:endpoint http://<host>:<port>`, " +
  "or the environment variable GO_PVE_QEMU_ENDPOINT";

/** Field by field: the resource's own setting, else the default. Throws when there is no endpoint at all. */
export function resolveConnection(
  own: ConnectionSettings | undefined,
  defaults?: ConnectionDefaults,
): ResolvedConnection {
  const endpoint = nonEmpty(own?.endpoint) ?? nonEmpty(defaults?.endpoint);
  if (endpoint === undefined) throw new LifecycleError(NO_ENDPOINT_HELP);
  const out: ResolvedConnection = { endpoint };
  const token = nonEmpty(own?.token) ?? nonEmpty(defaults?.token);
  if (token !== undefined) out.token = token;
  const headers = own?.headers ?? defaults?.headers;
  if (headers !== undefined && Object.keys(headers).length > 0) out.headers = { ...headers };
  const caCert = nonEmpty(own?.caCert) ?? nonEmpty(defaults?.caCert);
  if (caCert !== undefined) out.caCert = caCert;
  return out;
}

/** The key of a server for the VMID lock: the same server spelled the same way. */
export function endpointKey(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return endpoint.trim().replace(/\/+$/, "").toLowerCase();
  }
}

/** The secrets of a connection, for redaction. */
export function connectionSecrets(conn: ConnectionSettings | undefined): string[] {
  if (!conn) return [];
  return [conn.token, ...Object.values(conn.headers ?? {})].filter((s): s is string => typeof s === "string");
}

function nonEmpty(v: string | undefined): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}
