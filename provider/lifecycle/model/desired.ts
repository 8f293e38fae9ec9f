// What the VM should have, given the desired inputs: the server's defaults
// for omitted values, and the limits it revealed by clamping at install. Diff
// and plan both compare these targets with the VM's real values, so an
// omitted input equals the default that was applied, and a request above a
// known limit equals the limit (no endless diff after clamping).
import { SERVER_DEFAULTS, defaultUser } from "./input-rules";
import type { VmState } from "./state";

type Sized = "cpu" | "memoryMb" | "diskGb";

/** The value the server would give the VM for this desired value. */
function target(state: Pick<VmState, "clamped">, key: Sized, desired: number | undefined): number {
  const want = desired ?? SERVER_DEFAULTS[key];
  const limit = state.clamped?.[key]?.limit;
  return limit !== undefined && want > limit ? limit : want;
}

/** The login user the server gives for this desired user and OS. */
export function targetUser(desiredUser: string | undefined, os: string | undefined): string | undefined {
  return desiredUser ?? defaultUser(os);
}

/** Desired power state: running unless asked otherwise. */
export function targetRunning(desired: boolean | undefined): boolean {
  return desired ?? true;
}

/** Two reboot-trigger lists are the same when equal item by item (omitted = empty). */
function sameTriggers(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/**
 * The value to set for cpu or memoryMb, or undefined when the VM already has
 * what the inputs ask for. When the real value is not known (a partial or old
 * state), only a changed desired value counts.
 */
export function sizeChange(old: VmState, key: Sized, desired: number | undefined): number | undefined {
  const want = target(old, key, desired);
  const actual = old[key];
  if (actual === undefined) {
    return desired !== undefined && desired !== old.inputs?.[key] ? want : undefined;
  }
  if (key === "diskGb") return want > actual ? want : undefined; // a disk only grows; a larger real disk is left alone
  return want !== actual ? want : undefined;
}

/** The disk size the VM has now, as well as we know it. */
export function currentDisk(old: VmState): number {
  return old.diskGb ?? target(old, "diskGb", old.inputs?.diskGb);
}

/** The node to migrate to, or undefined. An omitted node means "wherever it is". */
export function nodeChange(old: VmState, desired: string | undefined): string | undefined {
  if (desired === undefined) return undefined;
  const actual = old.disabled ? undefined : old.node;
  if (actual === undefined || actual === "-") return desired !== old.inputs?.node ? desired : undefined;
  return desired !== actual ? desired : undefined;
}

/** Reboot triggers changed (none recorded is an empty list). */
export function triggersChanged(old: VmState, desired: readonly string[] | undefined): boolean {
  return !sameTriggers(desired, old.inputs?.rebootTriggers);
}
