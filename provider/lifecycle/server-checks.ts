// The checks of a resource's inputs that need more than the inputs: other
// resources of the same program (two VMs pinning one VMID on one server) and
// the server itself (is `node` one of the cluster's nodes; can the server be
// reached at all). They run at check time, so `pulumi preview` reports them
// before anything is made, and again at `pulumi up` before any install.
//
// One instance lives as long as the provider process, which sees the check of
// every resource of the program: that is what makes the VMID rule possible.
// The server's list is asked once per endpoint per process, with a short
// timeout; a server that cannot be reached is a warning, not a failure, so a
// preview still works without it, and `offline` skips asking altogether.
import type { GoPveQemuApi } from "../client/api";
import { endpointKey, resolveConnection } from "./connection";
import type { ConnectionDefaults, ResolvedConnection } from "./connection";
import type { CheckFailure } from "./check";
import type { Reporter } from "./context";
import { containsUnknown, isUnknown } from "./inputs";
import type { VmInputs } from "./inputs";

export interface ServerCheckOptions {
  client(conn: ResolvedConnection): GoPveQemuApi;
  connectionDefaults?: ConnectionDefaults;
  /** Do not ask the server (previews in CI without it). */
  offline: boolean;
  /** Longest wait for the server's answer. */
  timeoutMs: number;
}

/** The cluster's node names, or why they are not known. */
type NodeNames = { nodes: string[] } | { problem: string };

export class ServerChecks {
  /** endpoint key -> the list's node names (one request per endpoint per process) */
  private readonly nodeNames = new Map<string, Promise<NodeNames>>();
  /** endpoint keys already warned about as unreachable */
  private readonly warned = new Set<string>();
  /** "endpoint key#vmid" -> URN of the resource that pins it */
  private readonly pinnedBy = new Map<string, string>();
  /** URN -> its "endpoint key#vmid", so that a re-check or a changed vmid moves the entry */
  private readonly pinOf = new Map<string, string>();

  constructor(private readonly options: ServerCheckOptions) {}

  /** Failures of resource `urn` with checked `inputs` (already valid on their own). */
  async check(urn: string, inputs: VmInputs, reporter: Reporter): Promise<CheckFailure[]> {
    const conn = this.connectionOf(inputs);
    if (conn === undefined) return [];
    const failures: CheckFailure[] = [];
    const duplicate = this.pin(urn, conn.endpoint, inputs.vmid);
    if (duplicate !== undefined) failures.push(duplicate);
    if (this.options.offline) return failures;

    const names = await this.nodesOf(conn);
    if ("problem" in names) {
      const key = endpointKey(conn.endpoint);
      if (!this.warned.has(key)) {
        this.warned.add(key);
        reporter.warn(
          `the go-pve-qemu server at ${conn.endpoint} ${names.problem}; ` +
            "node names were not checked against the cluster and `pulumi up` will need the server. " +
            "For previews without the server, set `pulumi config set goPveQemu:offline true` (or GO_PVE_QEMU_OFFLINE=true)",
        );
      }
      return failures;
    }
    const node = inputs.node;
    if (typeof node === "string" && !isUnknown(node) && names.nodes.length > 0 && !names.nodes.includes(node)) {
      failures.push({
        property: "node",
        reason: `node: ${JSON.stringify(node)} is not a node of the cluster at ${conn.endpoint}; its nodes are ${names.nodes.join(", ")}`,
      });
    }
    return failures;
  }

  /** The connection the resource will use, or undefined when it is not known yet (preview). */
  private connectionOf(inputs: VmInputs): ResolvedConnection | undefined {
    if (containsUnknown(inputs.connection)) return undefined;
    try {
      return resolveConnection(inputs.connection, this.options.connectionDefaults);
    } catch {
      return undefined; // no endpoint at all: check itself reports that
    }
  }

  /** Records that `urn` pins `vmid` on `endpoint`; a failure when another resource pins it already. */
  private pin(urn: string, endpoint: string, vmid: unknown): CheckFailure | undefined {
    const previous = this.pinOf.get(urn);
    if (previous !== undefined && this.pinnedBy.get(previous) === urn) this.pinnedBy.delete(previous);
    this.pinOf.delete(urn);
    if (typeof vmid !== "number") return undefined;
    const key = `${endpointKey(endpoint)}#${vmid}`;
    const other = this.pinnedBy.get(key);
    if (other !== undefined && other !== urn) {
      return {
        property: "vmid",
        reason:
          `vmid: ${vmid} is pinned by both ${nameOf(other)} and ${nameOf(urn)} on ${endpoint}; ` +
          "one VMID is one VM: give each resource its own vmid, or omit vmid to let the server pick one",
      };
    }
    this.pinnedBy.set(key, urn);
    this.pinOf.set(urn, key);
    return undefined;
  }

  private nodesOf(conn: ResolvedConnection): Promise<NodeNames> {
    const key = endpointKey(conn.endpoint);
    let names = this.nodeNames.get(key);
    if (names === undefined) {
      names = this.options
        .client(conn)
        .list({ signal: AbortSignal.timeout(this.options.timeoutMs) })
        .then(
          (list): NodeNames => ({
            nodes: [...new Set(list.nodes.map((n) => n.node ?? n.name ?? "").filter((n) => n !== ""))],
          }),
          (err: unknown): NodeNames => ({ problem: describe(err, this.options.timeoutMs) }),
        );
      this.nodeNames.set(key, names);
    }
    return names;
  }
}

/** The resource name at the end of a URN, quoted; the URN itself when it has no name. */
function nameOf(urn: string): string {
  const name = urn.split("::").pop();
  return name ? JSON.stringify(name) : urn;
}

/** What went wrong asking for the list, as the rest of a sentence that starts with the server. */
export function describe(err: unknown, timeoutMs: number): string {
  const code = (err as { code?: unknown } | null)?.code;
  const name = err instanceof Error ? err.name : "";
  if (code === "GPQ_CANCELLED" || name === "TimeoutError")
    return `cannot be reached (no answer within ${timeoutMs} ms)`;
  const text = err instanceof Error ? err.message : String(err);
  // A server that answers, but not with its list (a 500, a body of another shape).
  if (code === "GPQ_HTTP_STATUS" || code === "GPQ_RESPONSE_SHAPE") return `did not list its nodes (${text})`;
  return `cannot be reached (${text})`;
}
