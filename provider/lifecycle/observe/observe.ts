// One look at a VM, the same for every part of the lifecycle: is it listed,
// is it the VM we think (its real name), is it in the server's disabled list,
// and does it run. Then one mapping from what was seen to the state's fields.
//
// The power state is the list's running flag, which is what the server itself
// acts on: its power preconditions (`VM is running` / `VM is not running`)
// read the same list (upstream's CheckID over `pvesh get /cluster/resources`).
// `status` (`qm status`, live) is asked only when the list says stopped: on a
// real cluster the list lags a start by seconds, and a VM that runs must not
// be recorded as stopped. It is node-local, so `status` of a VM on another
// node fails with 500 `failed to get VM status: exit status 2` while the list
// shows it; the list's flag stands then. A list that says running is not
// second-guessed: until it says otherwise, the server refuses what a stopped
// VM allows. So a refresh of running VMs costs one shared `list`, not one
// `status` per VM. A disabled VM (node "-") is not asked: the server refuses
// to control it and lists no real values.
import type { GoPveQemuApi, VmEntry } from "../../client";
import { CODES, LifecycleError } from "../model";
import { diskFromList, memoryFromList } from "./listing";
import { errorText, safeCause } from "../core";
import type { Redactor } from "../core";
import type { VmState } from "../model";

export const STOPPED = "stopped";
export const RUNNING = "running";

export interface Expectations {
  /** The real name the VM should have (`<name>-<vmid>` or `<vmid>`); any name when omitted. */
  vmName?: string;
  /** Ask `status` when the list says stopped (default true); the list's flag alone when false. */
  status?: boolean;
  /**
   * Ask `status` whatever the list says: a follow that must catch a short
   * stop (the install's reboot) reads the live state, which the list lags.
   */
  live?: boolean;
}

export interface Observation {
  vmid: number;
  /** The server lists the VMID. */
  listed: boolean;
  /** Its list entry, when listed. */
  entry?: VmEntry;
  /** In the server's disabled list (node "-"): it may not be controlled and its values are not real. */
  disabled: boolean;
  /**
   * Listed and ours by name (or no name was expected, or it is disabled and
   * lists no real name). false when unlisted, or listed under another name:
   * then another VM holds the VMID.
   */
  nameMatches: boolean;
  /** The word `status` answered, when it was asked (the list said stopped) and answered. */
  status?: string;
  /** Why `status` gave no word: the error it failed with (the list's flag is used then). */
  statusError?: unknown;
  /** The list's flag, or `status`'s word when the list said stopped and it answered; undefined when unlisted or disabled. */
  running?: boolean;
}

/** A disabled VM (the server's .go_qemu_disabled file) lists with node "-". */
export function isDisabled(entry: Pick<VmEntry, "node">): boolean {
  return entry.node === "-";
}

/**
 * Looks at VM `vmid`: the list, then `status` when the list says it is
 * stopped (unless unlisted, disabled, another VM's, or not wanted). A list
 * that fails is thrown as the client's error; a status that fails is
 * recorded, not thrown, unless the signal fired.
 */
export async function observe(
  client: GoPveQemuApi,
  vmid: number,
  expect: Expectations = {},
  signal?: AbortSignal,
): Promise<Observation> {
  const list = await client.list({ signal });
  const entry = list.vms.find((vm) => vm.vmid === vmid);
  if (entry === undefined) return { vmid, listed: false, disabled: false, nameMatches: false };
  const disabled = isDisabled(entry);
  const nameMatches = disabled || expect.vmName === undefined || entry.name === expect.vmName;
  const observation: Observation = { vmid, listed: true, entry, disabled, nameMatches };
  if (disabled) return observation;
  observation.running = entry.running;
  if (expect.status === false || !nameMatches || (entry.running && expect.live !== true)) return observation;
  try {
    observation.status = await client.status(vmid, { signal });
    observation.running = observation.status === RUNNING;
  } catch (err) {
    if (signal?.aborted) throw err;
    observation.statusError = err;
  }
  return observation;
}

/**
 * observe for an operation on one VM: a list that fails becomes an error that
 * says where and what for (`could not list the VMs on <endpoint> to read VM web-101 (101)`).
 */
export async function observeFor(
  client: GoPveQemuApi,
  vmid: number,
  expect: Expectations,
  what: { endpoint: string; doing: string; redact: Redactor },
  signal?: AbortSignal,
): Promise<Observation> {
  try {
    return await observe(client, vmid, expect, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new LifecycleError(
      `could not list the VMs on ${what.endpoint} ${what.doing}: ${errorText(err, what.redact)}`,
      { cause: safeCause(err, what.redact), code: CODES.unreachable },
    );
  }
}

/** The power word of an observation: `status`'s, else the list's flag as a word, else undefined. */
export function powerWord(observation: Observation): string | undefined {
  if (observation.status !== undefined) return observation.status;
  if (observation.running === undefined) return undefined;
  return observation.running ? RUNNING : STOPPED;
}

/** The state fields an observation speaks for. */
export type ObservedFields = Pick<VmState, "vmName" | "node" | "cpu" | "memoryMb" | "diskGb" | "running" | "disabled">;

/**
 * The state's view of the VM after an observation, over what was known
 * before. A listed VM gives its real values (the list's GiB truncation is not
 * drift: memoryFromList, diskFromList); a disabled one lists none, so the known values stay and
 * `disabled` is set; an unlisted one changes nothing.
 */
export function observedFields(observation: Observation, known: ObservedFields): ObservedFields {
  const entry = observation.entry;
  if (entry === undefined) return { ...known };
  if (observation.disabled) return { ...known, disabled: true };
  return {
    vmName: entry.name,
    node: entry.node,
    cpu: entry.cpu,
    memoryMb: memoryFromList(entry.memory, known.memoryMb),
    diskGb: diskFromList(entry.disk, known.diskGb),
    running: observation.running,
    disabled: undefined,
  };
}
