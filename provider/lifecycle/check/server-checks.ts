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
import type { GoPveQemuApi, VmEntry } from "../../client";
import { HttpStatusError } from "../../client";
import { endpointKey, resolveConnection, LIMITS, containsUnknown, isUnknown } from "../model";
import type { ConnectionDefaults, ResolvedConnection, InstallJournal, VmInputs } from "../model";
import type { CheckFailure } from "./check";
import type { Reporter } from "../core";
import { beforeInstall } from "../install";
import { vmLabel } from "../core";

export interface ServerCheckOptions {
  client(conn: ResolvedConnection): GoPveQemuApi;
  connectionDefaults?: ConnectionDefaults;
  /** Where the default token came from, for messages (e.g. "stack config goPveQemu:token"). */
  defaultTokenSource?: string;
  /** Do not ask the server (previews in CI without it). */
  offline: boolean;
  /** Longest wait for the server's answer. */
  timeoutMs: number;
}

/**
 * The server's list, or why it is not known: `refused` when the server, or a
 * proxy in front of it, refused the credentials (401/403). That is a
 * failure, not a warning: `up` would be refused the same way.
 */
type Listing = { vms: VmEntry[]; nodes: string[] } | { problem: string } | { refused: string };

/** What a create would find of an earlier, interrupted create of the same resource (beforeInstall). */
export interface CreateClaim {
  identity: string;
  journal?: InstallJournal;
}

export class ServerChecks {
  /** endpoint key -> the server's list (one request per endpoint per process) */
  private readonly listings = new Map<string, Promise<Listing>>();
  /** endpoint keys already warned about as unreachable */
  private readonly warned = new Set<string>();
  /** "endpoint key#vmid" -> URN of the resource that pins it */
  private readonly pinnedBy = new Map<string, string>();
  /** URN -> its "endpoint key#vmid", so that a re-check or a changed vmid moves the entry */
  private readonly pinOf = new Map<string, string>();

  constructor(private readonly options: ServerCheckOptions) {}

  /**
   * Failures of resource `urn` with checked `inputs` (already valid on their
   * own). `claim`: the resource is to be created, and the stack's identity is
   * known: what its create would take over is said now, before `up` does it.
   */
  async check(urn: string, inputs: VmInputs, reporter: Reporter, claim?: CreateClaim): Promise<CheckFailure[]> {
    const conn = this.connectionOf(inputs);
    if (conn === undefined) return [];
    const failures: CheckFailure[] = [];
    const duplicate = this.pin(urn, conn.endpoint, inputs.vmid);
    if (duplicate !== undefined) failures.push(duplicate);
    if (this.options.offline) return failures;

    const names = await this.listOf(conn);
    if ("refused" in names) {
      failures.push({ property: "connection.token", reason: this.refusedReason(inputs, conn, names.refused) });
      return failures;
    }
    if ("vms" in names && claim !== undefined) {
      await announceTakeover(names.vms, { urn, inputs, endpoint: conn.endpoint, claim }, reporter);
    }
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

  /** Which setting carries the credentials that were refused, so the message names the one to fix. */
  private refusedReason(inputs: VmInputs, conn: ResolvedConnection, answer: string): string {
    const own = inputs.connection?.token !== undefined && inputs.connection.token !== "";
    const source = own ? "the resource's connection.token" : (this.options.defaultTokenSource ?? "goPveQemu:token");
    const which =
      conn.token === undefined
        ? "no token is set (give one with `pulumi config set --secret goPveQemu:token ...` or connection.token)"
        : `the token from ${source} was refused; set a valid one`;
    return `connection.token: the go-pve-qemu server at ${conn.endpoint}, or a proxy in front of it, refused the request (${answer}): ${which}`;
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

  private listOf(conn: ResolvedConnection): Promise<Listing> {
    const key = endpointKey(conn.endpoint);
    let listing = this.listings.get(key);
    if (listing === undefined) {
      listing = this.options
        .client(conn)
        .list({ signal: AbortSignal.timeout(this.options.timeoutMs) })
        .then(
          (list): Listing => ({
            vms: list.vms,
            nodes: [...new Set(list.nodes.map((n) => n.node ?? n.name ?? "").filter((n) => n !== ""))],
          }),
          (err: unknown): Listing =>
            err instanceof HttpStatusError && (err.status === 401 || err.status === 403)
              ? { refused: `HTTP ${err.status}: ${err.serverMessage}` }
              : { problem: describe(err, this.options.timeoutMs) },
        );
      this.listings.set(key, listing);
    }
    return listing;
  }
}

/** Says what the create of a resource will take over (or wait for), as `up` will do it. */
async function announceTakeover(
  vms: VmEntry[],
  c: { urn: string; inputs: VmInputs; endpoint: string; claim: CreateClaim },
  reporter: Reporter,
): Promise<void> {
  const { identity, journal } = c.claim;
  const entry = await journal?.get(identity, c.urn).catch(() => undefined);
  const found = beforeInstall(vms, {
    vmid: typeof c.inputs.vmid === "number" ? c.inputs.vmid : undefined,
    name: typeof c.inputs.name === "string" && !isUnknown(c.inputs.name) ? c.inputs.name : undefined,
    identity,
    urn: c.urn,
    os: c.inputs.os,
    endpoint: c.endpoint,
    nameMax: LIMITS.nameMax,
    journal: entry,
  });
  if (found.kind === "interrupted") {
    const { entry: vm } = found.own;
    reporter.warn(
      `this create will take over VM ${vmLabel(vm.vmid, vm.name)} on ${c.endpoint} instead of installing one: ` +
        `an interrupted create of this resource left it (${found.own.evidence === "mark" ? "its name carries this stack's mark for it" : "this machine's install journal gave it its VMID"})` +
        (found.leftovers.length > 0
          ? `; it will remove ${found.leftovers.map((o) => vmLabel(o.entry.vmid, o.entry.name)).join(", ")}, left by other interrupted creates of it`
          : ""),
    );
  } else if (found.kind === "pending" && found.journal.vmid !== undefined) {
    reporter.warn(
      `this create will wait for VM ${found.journal.vmid} on ${c.endpoint} instead of installing one: an interrupted ` +
        "create of this resource began installing it (this machine's install journal), and the server may still create it",
    );
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
