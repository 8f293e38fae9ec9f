// discover: the server's VMs that the given stacks do not hold, declared as
// `Vm`s with `adopt: true`. It reads the list once, so that every VM is
// described as of the same moment, reads each VM as adopt will (describeVm),
// and writes nothing to the server (readOnlyClient).
import { GoPveQemuClient } from "../client";
import type { VmEntry } from "../client";
import { listServer } from "../cluster";
import { ProcessScope, endpointKey } from "../lifecycle";
import type { LifecycleContext, ResolvedConnection } from "../lifecycle";
import { describeVm } from "./describe";
import type { Description } from "./describe";
import { DiscoverOptionError } from "./discover-option-error";
import { heldVms } from "./exports";
import { importFileOf } from "./import-file";
import type { HeldVm } from "./exports";
import { resourceNames } from "./names";
import { readOnlyClient } from "./read-only";
import { renderProgram } from "./render";
import { reportLines } from "./report";
import type { AdoptedVm, DiscoverOptions, Discovery, SkippedVm } from "./discovery";

const DEFAULT_TIMEOUT_MS = 30_000;

export async function discover(options: DiscoverOptions): Promise<Discovery> {
  const conn = connectionOf(options);
  // The exports first: a bad file fails before the server is asked.
  const held = heldVms(options.excludeStackExports ?? []);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const list = await listServer(conn, timeoutMs);
  const vms = [...list.vms].sort((a, b) => a.vmid - b.vmid);
  const sorted = sortOut(vms, held, conn.endpoint);
  const server = new GoPveQemuClient({ ...conn, requestTimeoutMs: timeoutMs });
  let described: Description[];
  try {
    const ctx = contextOf(conn, readOnlyClient(server, list));
    described = await Promise.all(sorted.toDescribe.map((entry) => describeVm(entry, ctx)));
  } finally {
    await server.close();
  }
  return assemble(conn.endpoint, vms.length, described, sorted);
}

function connectionOf(options: DiscoverOptions): ResolvedConnection {
  const endpoint = options.connection?.endpoint?.trim() ?? "";
  if (endpoint === "") {
    throw new DiscoverOptionError("connection.endpoint", undefined, "is required, e.g. http://10.0.0.5:8080");
  }
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new DiscoverOptionError("connection.endpoint", endpoint, "is not an http(s) URL, e.g. http://10.0.0.5:8080");
  }
  return { ...options.connection, endpoint };
}

interface Sorted {
  toDescribe: VmEntry[];
  held: SkippedVm[];
  disabled: SkippedVm[];
}

/** Which VMs to describe, and which the server or the stacks given keep out. */
function sortOut(vms: readonly VmEntry[], held: readonly HeldVm[], endpoint: string): Sorted {
  const out: Sorted = { toDescribe: [], held: [], disabled: [] };
  for (const entry of vms) {
    const base = { vmid: entry.vmid, vmName: entry.name };
    // The server lists a VM of its .go_qemu_disabled file with node "-".
    if (entry.node === "-") {
      out.disabled.push({
        ...base,
        reasons: ["the server's .go_qemu_disabled file protects it from being controlled"],
      });
      continue;
    }
    const holder = holderOf(entry, held, endpoint);
    if (holder === undefined) out.toDescribe.push(entry);
    else out.held.push({ ...base, reasons: [heldReason(holder)] });
  }
  return out;
}

function holderOf(entry: VmEntry, held: readonly HeldVm[], endpoint: string): HeldVm | undefined {
  const here = endpointKey(endpoint);
  return held.find(
    (h) =>
      (h.endpoint === undefined || endpointKey(h.endpoint) === here) &&
      (h.vmid === entry.vmid ||
        (h.vmid === undefined && h.name !== undefined && entry.name === `${h.name}-${entry.vmid}`)),
  );
}

function heldReason(h: HeldVm): string {
  const where =
    h.endpoint === undefined
      ? " (its export keeps the server secret: taken to be this one; export with --show-secrets to match by server)"
      : "";
  return `held by stack ${h.stack} as ${JSON.stringify(h.resourceName)}${where}`;
}

/** Lifecycle context for read: the one connection, a silent reporter (discover reports for itself). */
function contextOf(conn: ResolvedConnection, client: ReturnType<typeof readOnlyClient>): LifecycleContext {
  const quiet = (): void => undefined;
  return {
    reporter: { info: quiet, warn: quiet, debug: quiet },
    // discover's reads are its own: no other operation of this process to coordinate with.
    process: new ProcessScope(),
    client: () => client,
    connectionDefaults: conn,
  };
}

function assemble(endpoint: string, listed: number, described: Description[], sorted: Sorted): Discovery {
  const names = resourceNames(described);
  const adopted: AdoptedVm[] = [];
  const undeclared: SkippedVm[] = [];
  for (const d of described) {
    if (d.kind === "adopt") {
      adopted.push({ resourceName: names.get(d.vmid)!, vmid: d.vmid, vmName: d.vmName, args: d.args, notes: d.notes });
    } else undeclared.push({ vmid: d.vmid, vmName: d.vmName, reasons: d.reasons });
  }
  const declarations = described.map((d) => ({
    resourceName: names.get(d.vmid)!,
    vmid: d.vmid,
    vmName: d.vmName,
    args: d.args,
    notes: d.kind === "adopt" ? d.notes : [],
    ...(d.kind === "undeclared" ? { reasons: d.reasons } : {}),
  }));
  const result = { endpoint, adopted, held: sorted.held, disabled: sorted.disabled, undeclared };
  const program = renderProgram({ endpoint, declarations, held: sorted.held, disabled: sorted.disabled });
  return { ...result, program, importFile: importFileOf(adopted), report: reportLines(result, listed) };
}
