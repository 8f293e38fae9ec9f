// Delete: the server refuses to destroy a running VM, so stop it first (a
// hard stop: it is going away), wait until `stopped`, destroy, and confirm by
// polling the list until the VMID is gone. A VM that is already gone is
// success. A VM listed under the same VMID but another name is not ours (the
// VMID was reused after ours was removed by hand): it is left alone.
import type { GoPveQemuApi } from "../../client";
import { HttpStatusError } from "../../client";
import { resolveConnection, LifecycleError, parseState } from "../model";
import { timingOf, duration, errorText, safeCause, sessionOf } from "../core";
import type { LifecycleContext, Redactor } from "../core";
import { observe, observeFor } from "../observe";
import { isPowerRefusal, stopAndWait, waitGone } from "../power";
import type { VmState } from "../model";

export function disabledMessage(label: string): string {
  return (
    `VM ${label} is in the server's disabled list (.go_qemu_disabled; it lists with node "-"): ` +
    "the server refuses to control it. Remove it from that file on the server, or stop managing it " +
    "with `pulumi state delete`"
  );
}

/**
 * Stops (when running), destroys and confirms. `expectName`, when given, must
 * match the listed name, else the VM is not ours and is left alone ("other").
 */
export async function destroyVm(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
  expectName?: string,
): Promise<"destroyed" | "gone" | "other"> {
  const what = { endpoint: "the server", doing: `to delete VM ${label}`, redact };
  const seen = await observeFor(client, vmid, { vmName: expectName }, what, ctx.signal);
  if (!seen.listed) return "gone";
  if (seen.disabled) throw new LifecycleError(disabledMessage(label));
  if (!seen.nameMatches) return "other";
  if (seen.running) {
    ctx.reporter.info(`stopping VM ${label} before destroying it`);
    await stopAndWait(client, vmid, label, ctx, redact);
  }
  ctx.reporter.info(`destroying VM ${label}`);
  if ((await sendDestroy(client, vmid, label, ctx, redact)) === "gone") return "gone";
  const { goneTimeoutMs } = timingOf(ctx);
  if (!(await waitGone(client, vmid, goneTimeoutMs, ctx))) {
    throw new LifecycleError(
      `VM ${label} was destroyed, but the server still lists it after ${duration(goneTimeoutMs)}`,
    );
  }
  return "destroyed";
}

/**
 * destroy, once more after a stop when it was started again in between. The
 * real server answers a VMID with no config (removed meanwhile) with the text
 * of a failed `ssh` to an empty host: when the list confirms the VM is gone,
 * that is "gone", not an error.
 */
async function sendDestroy(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<"sent" | "gone"> {
  const first = await tryDestroy(client, vmid, ctx);
  if (first.kind !== "refused") return first.kind;
  if (!isPowerRefusal(first.err, true)) throw refusal(label, first.err, redact);
  // It was started again in between: stop once more, then destroy.
  await stopAndWait(client, vmid, label, ctx, redact);
  const again = await tryDestroy(client, vmid, ctx);
  if (again.kind !== "refused") return again.kind;
  throw refusal(label, again.err, redact);
}

/** One destroy call: sent, gone (no config, and the list agrees), or refused with the server's error. */
async function tryDestroy(
  client: GoPveQemuApi,
  vmid: number,
  ctx: LifecycleContext,
): Promise<{ kind: "sent" | "gone" } | { kind: "refused"; err: unknown }> {
  try {
    await client.destroy(vmid, { signal: ctx.signal });
    return { kind: "sent" };
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    if (isNoConfig(err) && (await confirmedGone(client, vmid, ctx))) return { kind: "gone" };
    return { kind: "refused", err };
  }
}

/** The server's words for a per-VM call on a VMID that has no config (it runs qm over ssh to no host). */
function isNoConfig(err: unknown): boolean {
  return (
    err instanceof HttpStatusError &&
    /Could not resolve hostname|Configuration file .* does not exist/i.test(err.serverMessage)
  );
}

async function confirmedGone(client: GoPveQemuApi, vmid: number, ctx: LifecycleContext): Promise<boolean> {
  try {
    return !(await observe(client, vmid, { status: false }, ctx.signal)).listed;
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return false;
  }
}

function refusal(label: string, err: unknown, redact: Redactor): LifecycleError {
  const said = err instanceof HttpStatusError ? redact(err.serverMessage.trim()) : errorText(err, redact);
  return new LifecycleError(`the server refused to destroy VM ${label}: ${said}`, { cause: safeCause(err, redact) });
}

/** Pulumi's delete. Uses the connection the VM was created with. */
export async function remove(id: string, olds: VmState, ctx: LifecycleContext): Promise<void> {
  const state = parseState(olds, id);
  const conn = state.connection ?? resolveConnection(undefined, ctx.connectionDefaults);
  const { client, redact, label } = sessionOf(ctx, state, conn, [state.password]);
  ctx.reporter.info(`deleting VM ${label} on ${conn.endpoint}`);
  const result = await destroyVm(client, state.vmid, label, ctx, redact, state.vmName);
  if (result === "gone") ctx.reporter.info(`VM ${label} is already gone; nothing to delete`);
  else if (result === "other") {
    ctx.reporter.warn(
      `VMID ${state.vmid} now belongs to another VM (its name is not ${state.vmName}): ours is gone; the other VM is left alone`,
    );
  } else ctx.reporter.info(`VM ${label} is deleted`);
}
