// Delete: the server refuses to destroy a running VM, so stop it first (a
// hard stop: it is going away), wait until `stopped`, destroy, and confirm by
// polling the list until the VMID is gone. A VM that is already gone is
// success. A VM listed under the same VMID but another name is not ours (the
// VMID was reused after ours was removed by hand): it is left alone.
import type { GoPveQemuApi } from "../client/api";
import { HttpStatusError } from "../client/errors";
import { resolveConnection } from "./connection";
import { connectionSecrets } from "./connection";
import { timingOf } from "./context";
import type { LifecycleContext } from "./context";
import { LifecycleError } from "./errors";
import { findEntry, isDisabled, isPowerRefusal, RUNNING, seconds, stopAndWait, vmLabel, waitGone } from "./power";
import { errorText, redactor } from "./redact";
import type { Redactor } from "./redact";
import { parseState } from "./state";
import type { VmState } from "./state";

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
  const listFail = (err: unknown): LifecycleError =>
    new LifecycleError(`could not list the server's VMs to delete VM ${label}: ${errorText(err, redact)}`, {
      cause: err,
    });
  const entry = await findEntry(client, vmid, ctx.signal).catch((err: unknown) => {
    throw listFail(err);
  });
  if (entry === undefined) return "gone";
  if (isDisabled(entry)) throw new LifecycleError(disabledMessage(label));
  if (expectName !== undefined && entry.name !== expectName) return "other";

  let status: string | undefined;
  try {
    status = await client.status(vmid, { signal: ctx.signal });
  } catch {
    status = entry.running ? RUNNING : undefined;
  }
  if (status === RUNNING) {
    ctx.reporter.info(`stopping VM ${label} before destroying it`);
    await stopAndWait(client, vmid, label, ctx, redact);
  }

  ctx.reporter.info(`destroying VM ${label}`);
  try {
    await client.destroy(vmid, { signal: ctx.signal });
  } catch (err) {
    if (isPowerRefusal(err, true)) {
      // It was started again in between: stop once more, then destroy.
      await stopAndWait(client, vmid, label, ctx, redact);
      await client.destroy(vmid, { signal: ctx.signal }).catch((again: unknown) => {
        throw refusal(label, again, redact);
      });
    } else throw refusal(label, err, redact);
  }

  const { goneTimeoutMs } = timingOf(ctx);
  if (!(await waitGone(client, vmid, goneTimeoutMs, ctx))) {
    throw new LifecycleError(
      `VM ${label} was destroyed, but the server still lists it after ${seconds(goneTimeoutMs)}`,
    );
  }
  return "destroyed";
}

function refusal(label: string, err: unknown, redact: Redactor): LifecycleError {
  const said = err instanceof HttpStatusError ? redact(err.serverMessage.trim()) : errorText(err, redact);
  return new LifecycleError(`the server refused to destroy VM ${label}: ${said}`, { cause: err });
}

/** Pulumi's delete. Uses the connection the VM was created with. */
export async function remove(id: string, olds: VmState, ctx: LifecycleContext): Promise<void> {
  const state = parseState(olds, id);
  const conn = state.connection ?? resolveConnection(undefined, ctx.connectionDefaults);
  const client = ctx.client(conn);
  const redact = redactor([state.password, ...connectionSecrets(conn)]);
  const label = vmLabel(state.vmid, state.vmName);
  ctx.reporter.info(`deleting VM ${label} on ${conn.endpoint}`);
  const result = await destroyVm(client, state.vmid, label, ctx, redact, state.vmName);
  if (result === "gone") ctx.reporter.info(`VM ${label} is already gone; nothing to delete`);
  else if (result === "other") {
    ctx.reporter.warn(
      `VMID ${state.vmid} now belongs to another VM (its name is not ${state.vmName}): ours is gone; the other VM is left alone`,
    );
  } else ctx.reporter.info(`VM ${label} is deleted`);
}
