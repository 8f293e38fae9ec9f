// Read: refresh a VM from the server's list (observe: `status` only when it says stopped),
// or read one by its VMID alone (no prior state: adopt, a lookup by id).
//
// - Gone from the list -> undefined (the glue removes it from state), except
//   an unconfirmed install's VM while the server may still create it: kept
//   as it is (settleUnconfirmed), to be settled by a later look.
// - Listed under the same VMID but another name -> ours is gone and the VMID
//   was reused: undefined too, with a warning (adopting a stranger's VM would
//   let a later `destroy` remove it).
// - Drift in cpu, memory, disk, node and power becomes the new state (and a
//   line per change); the next `up` corrects it (diff compares with the VM).
// - The list's GiB truncation is not drift (memoryFromList, diskFromList).
// - A disabled VM (node "-", the server's .go_qemu_disabled file) lists no
//   real values: the known ones are kept, `disabled` is set and said plainly.
// - No prior state: a full state from the list entry, and the inputs that
//   describe the VM. The server does not know the OS version, user, password,
//   key or triggers: they stay unset (adopt's update then records what the
//   program says). The IP is unknown too (it depends on the server's
//   gateway). The connection comes from the defaults.
import { OsSchema } from "../../client";
import { resolveConnection, LifecycleError, dropUndefined, nameFromVmName, parseState, vmidFromId } from "../model";
import type { LifecycleContext } from "../core";
import type { VmInputs, Desired, VmState } from "../model";
import { vmLabel, sessionOf } from "../core";
import { observeFor, observedFields } from "../observe";
import type { Observation } from "../observe";
import { settleUnconfirmed } from "../install";

export interface ReadResult {
  id: string;
  state: VmState;
  /** Only when read without prior state: the inputs that describe the VM as found. */
  inputs?: VmInputs;
}

export async function read(
  id: string,
  olds: Partial<VmState> | undefined,
  ctx: LifecycleContext,
): Promise<ReadResult | undefined> {
  const importing =
    olds === undefined || (olds.vmid === undefined && olds.connection === undefined && olds.inputs === undefined);
  const vmid = vmidFromId(id) ?? olds?.vmid;
  if (vmid === undefined) {
    throw new LifecycleError(`${JSON.stringify(id)} is not a VMID; a VM is read or imported by its VMID, e.g. 101`);
  }
  const prior = importing ? undefined : parseState(olds, id);
  const conn = prior?.connection ?? resolveConnection(undefined, ctx.connectionDefaults);
  const { client, redact, label } = sessionOf(ctx, { vmid, vmName: prior?.vmName }, conn, [prior?.password]);

  const what = { endpoint: conn.endpoint, doing: `to read VM ${label}`, redact };
  const seen = await observeFor(client, vmid, { vmName: prior?.vmName }, what, ctx.signal);
  if (!seen.listed) {
    // An unconfirmed install's VM may not be there yet: only the settle rules can call it gone.
    const waiting = prior?.installState === "unconfirmed" ? settleUnconfirmed(prior, seen, ctx, label) : undefined;
    if (waiting !== undefined) return { id: String(vmid), state: dropUndefined(waiting) };
    ctx.reporter.info(`VM ${label} no longer exists on ${conn.endpoint}`);
    return undefined;
  }
  if (!seen.nameMatches) {
    ctx.reporter.warn(
      `VMID ${vmid} on ${conn.endpoint} now belongs to a VM named ${JSON.stringify(seen.entry?.name)}, not ${JSON.stringify(prior?.vmName)}: ` +
        "this resource's VM is gone (its VMID was reused); the other VM is left alone",
    );
    return undefined;
  }
  if (seen.disabled) {
    ctx.reporter.warn(
      `VM ${label} is in the server's disabled list (.go_qemu_disabled; it lists with node "-"): the server refuses to control it, ` +
        "and it reports no cpu, memory, disk or node for it; the last known values are kept",
    );
  }
  if (prior === undefined) return fromList(vmid, seen, conn, ctx);

  const next: VmState = dropUndefined({
    ...prior,
    ...observedFields(seen, prior),
    os: validOs(seen.entry?.os) ?? prior.os,
    connection: conn,
  });
  reportDrift(prior, next, label, ctx);
  const settled = settleUnconfirmed(next, seen, ctx, label);
  return settled === undefined ? undefined : { id: String(vmid), state: dropUndefined(settled) };
}

function validOs(os: string | undefined): VmState["os"] {
  return os !== undefined && OsSchema.safeParse(os).success ? os : undefined;
}

/** A VM read without prior state: what the list says of it, as its state and as the inputs that describe it. */
function fromList(vmid: number, seen: Observation, conn: VmState["connection"], ctx: LifecycleContext): ReadResult {
  const entry = seen.entry!;
  const os = validOs(entry.os);
  const real = observedFields(seen, {});
  const desired: Desired = dropUndefined({
    os,
    name: nameFromVmName(entry.name, vmid),
    vmid,
    node: real.node,
    cpu: real.cpu,
    memoryMb: real.memoryMb,
    diskGb: real.diskGb,
    running: real.running,
  });
  const state: VmState = dropUndefined({
    vmid,
    vmName: entry.name,
    os,
    node: real.node,
    cpu: real.cpu,
    memoryMb: real.memoryMb,
    diskGb: real.diskGb,
    running: real.running,
    connection: conn,
    inputs: desired,
    disabled: real.disabled,
  });
  ctx.reporter.info(
    `imported VM ${vmLabel(vmid, entry.name)}: os ${os ?? "unknown"}, the version, user, password and IP are not known to the server's list` +
      (entry.memory > 0 ? `; memory reads as whole GiB (${entry.memory * 1024} MB)` : ""),
  );
  return { id: String(vmid), state, inputs: dropUndefined({ ...desired }) as VmInputs };
}

function reportDrift(prior: VmState, next: VmState, label: string, ctx: LifecycleContext): void {
  const changes: string[] = [];
  for (const key of ["cpu", "memoryMb", "diskGb", "node", "running"] as const) {
    if (prior[key] !== undefined && prior[key] !== next[key])
      changes.push(`${key} ${String(prior[key])} -> ${String(next[key])}`);
  }
  if (changes.length > 0) {
    ctx.reporter.info(`VM ${label} differs from the last known state (changed outside Pulumi?): ${changes.join(", ")}`);
  }
}
