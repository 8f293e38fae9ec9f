// Power-state chores shared by create, update and delete: the server refuses
// most calls unless the VM is in the right state, and shutdown/stop answer
// before the VM has actually stopped, so every change is followed by polling
// `status` until it says so.
import type { GoPveQemuApi } from "../client/api";
import { HttpStatusError } from "../client/errors";
import type { VmEntry } from "../client/schemas";
import { sleep, timingOf } from "./context";
import type { LifecycleContext } from "./context";
import { LifecycleError } from "./errors";
import { errorText, safeCause } from "./redact";
import type { Redactor } from "./redact";

export const STOPPED = "stopped";
export const RUNNING = "running";

/** The list entry of this VMID, or undefined when the server does not list it. */
export async function findEntry(
  client: GoPveQemuApi,
  vmid: number,
  signal?: AbortSignal,
): Promise<VmEntry | undefined> {
  const list = await client.list({ signal });
  return list.vms.find((vm) => vm.vmid === vmid);
}

/**
 * findEntry for an operation on one VM: a list that fails becomes an error
 * that says where and what for (`to read VM web-101 (101)`).
 */
export async function listedEntry(
  client: GoPveQemuApi,
  vmid: number,
  what: { endpoint: string; doing: string },
  redact: Redactor,
  signal?: AbortSignal,
): Promise<VmEntry | undefined> {
  try {
    return await findEntry(client, vmid, signal);
  } catch (err) {
    throw new LifecycleError(`could not list the VMs on ${what.endpoint} ${what.doing}: ${errorText(err, redact)}`, {
      cause: safeCause(err, redact),
    });
  }
}

/** A VM in the server's disabled file shows node "-": it may not be controlled. */
export function isDisabled(entry: Pick<VmEntry, "node">): boolean {
  return entry.node === "-";
}

/**
 * Polls `status` until it says `want` or the time is up. Errors in between
 * (a busy server) are tolerated until the deadline. Returns the last word seen.
 */
export async function waitForStatus(
  client: GoPveQemuApi,
  vmid: number,
  want: string,
  timeoutMs: number,
  ctx: LifecycleContext,
): Promise<{ reached: boolean; last?: string }> {
  const { pollIntervalMs } = timingOf(ctx);
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    try {
      last = await powerState(client, vmid, ctx.signal);
      if (last === want) return { reached: true, last };
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      last = undefined;
    }
    if (Date.now() >= deadline) return { reached: false, last };
    await sleep(Math.min(pollIntervalMs, Math.max(0, deadline - Date.now())), ctx.signal);
  }
}

/**
 * The power state word from `status`; when `status` cannot answer (on a real
 * cluster `qm status` only sees VMs of the main node), the list's running
 * flag ("running" / "stopped"). Undefined when the VM is not listed either.
 */
export async function powerState(
  client: GoPveQemuApi,
  vmid: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    return await client.status(vmid, { signal });
  } catch (err) {
    if (signal?.aborted) throw err;
    const entry = await findEntry(client, vmid, signal);
    if (entry === undefined) throw err;
    return entry.running ? RUNNING : STOPPED;
  }
}

/** The server said the VM is not in the state the call needs ("VM is not running" / "VM is running"). */
export function isPowerRefusal(err: unknown, running: boolean): boolean {
  if (!(err instanceof HttpStatusError)) return false;
  return running ? /VM is running/i.test(err.serverMessage) : /VM is not running/i.test(err.serverMessage);
}

/**
 * Graceful shutdown, then wait for `stopped`; after the shutdown timeout a
 * hard stop. Resolves once status says stopped; a VM that is already stopped
 * is fine.
 */
export async function shutdownAndWait(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<"graceful" | "forced" | "already"> {
  const timing = timingOf(ctx);
  try {
    await client.shutdown(vmid, { signal: ctx.signal });
  } catch (err) {
    if (isPowerRefusal(err, false)) return "already";
    throw new LifecycleError(`could not shut down VM ${label}: ${errorText(err, redact)}`, { cause: err });
  }
  const waited = await waitForStatus(client, vmid, STOPPED, timing.shutdownTimeoutMs, ctx);
  if (waited.reached) return "graceful";
  ctx.reporter.warn(
    `VM ${label} did not shut down within ${seconds(timing.shutdownTimeoutMs)} (status: ${waited.last ?? "unknown"}); stopping it hard`,
  );
  await stopAndWait(client, vmid, label, ctx, redact);
  return "forced";
}

/** Hard stop, then wait for `stopped`. */
export async function stopAndWait(
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<void> {
  const timing = timingOf(ctx);
  try {
    await client.stop(vmid, { signal: ctx.signal });
  } catch (err) {
    if (!isPowerRefusal(err, false)) {
      throw new LifecycleError(`could not stop VM ${label}: ${errorText(err, redact)}`, { cause: err });
    }
  }
  const waited = await waitForStatus(client, vmid, STOPPED, timing.stopTimeoutMs, ctx);
  if (!waited.reached) {
    throw new LifecycleError(
      `VM ${label} was stopped but status still says ${waited.last ?? "nothing readable"} after ${seconds(timing.stopTimeoutMs)}`,
    );
  }
}

/** Polls the list until the VMID is gone. */
export async function waitGone(
  client: GoPveQemuApi,
  vmid: number,
  timeoutMs: number,
  ctx: LifecycleContext,
): Promise<boolean> {
  const { pollIntervalMs } = timingOf(ctx);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await findEntry(client, vmid, ctx.signal)) === undefined) return true;
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
    }
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(pollIntervalMs, Math.max(0, deadline - Date.now())), ctx.signal);
  }
}

export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10}s` : `${ms}ms`;
}

/** "web-101 (101)" or "101": how messages name a VM. */
export function vmLabel(vmid: number, vmName?: string): string {
  return vmName && vmName !== String(vmid) ? `${vmName} (${vmid})` : String(vmid);
}
