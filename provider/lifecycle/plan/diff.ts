// Replace, update in place, or nothing. Compared against what the VM has and
// the desired values kept in state, never against raw server numbers alone:
// an omitted input equals the default the server applied, a request above a
// limit the server revealed equals that limit, so a second `up` is a no-op.
//
// Decisions:
// - Which changed input is a replace and which an update is declared once,
//   per input, in model/input-behaviour.ts: replace for os, version, name,
//   vmid, user, password, sshPublicKey (only the install sets them). Each
//   input's comparison is in compare.ts.
// - An omitted password is never a change: a generated one is kept, and so is
//   an explicit one the user later removes (the VM's password does not change
//   by omitting it). A password is compared with the one on record, or with
//   its hash when storePassword is false; switching storePassword is an update
//   that only rewrites state.
// - connection is never a replace: it only says where we talk to the server.
//   A field set explicitly that differs from the stored connection is an
//   in-place update (state records the new connection); an omitted field keeps
//   the stored one, so changing stack defaults does not move existing VMs.
// - destroyOnCreateFailure and adopt only matter during create: never a change.
//   Nor are downtimeGroup and allowDowntime: they say how a change is made.
// - allowDowntime: false refuses an update that takes the running VM down and
//   brings it back (a shutdown to change it, a reboot), here, at preview.
//   But a replace while adopt is still set is refused: it would destroy the
//   adopted VM, and the create that follows would find nothing to adopt.
// - A disk larger than asked for (grown outside Pulumi) is left alone: it
//   cannot shrink; check rejects lowering the desired size.
// - delete-before-replace when the new VM pins the same VMID (or one not yet
//   known): both cannot exist at once. A different pinned VMID, or none, is
//   created first, then the old VM is deleted. Said for an update too: the
//   engine reads it only when it replaces, which a resource option
//   (replaceOnChanges) may make of an update, and the same reasons hold then.
// - delete-before-replace also when the new VM keeps this resource's derived
//   name (derivedName; the glue passes the URN): created first, the new VM's
//   create would find the old VM carrying the same name and take it for its
//   own interrupted create (and the delete would then remove it). Decided so
//   rather than excluding the old VMID at create, because create is not told
//   which VM the replace will delete. The cost: a replaced VM without a name is
//   gone before its successor exists.
// - An UNKNOWN value (preview) is a change of that property, a replace for a
//   replace property.
// - Each changed key is an add (nothing on record), a delete (the inputs omit
//   what was on record) or an update: the engine shows it so (kinds).
// - A VM from an install that did not finish: a failed one (installComplete
//   false) is replaced, like a tainted resource, since its initialisation may
//   never have run; keepIncompleteInstall: true keeps it as it is. One whose
//   outcome is not known yet (installState "unconfirmed") is an update, which
//   settles it by asking the server, unless one look showed that no wait can
//   settle it yet (installHeld): then it is no change by itself.
// - What the state does not hold is compared as the VM has it (a VM read
//   without prior state, as adopt begins, has no version, user, password, key
//   or triggers on record): no version or password on record is no change,
//   the user is the OS's default user, and the key and triggers are none.
import { INPUT_BEHAVIOUR, LifecycleError, VmStateSchema, derivedName, LIMITS, isUnknown, parseState } from "../model";
import type { ChangingInput, VmInputs, VmState } from "../model";
import { COMPARE, recordedName } from "./compare";
import { downtimeOf, refuseDowntime } from "./downtime";
import type { Downtime } from "./downtime";
import { vmLabel } from "../core";

/** A changed key: something set where nothing was on record, something on record omitted, or a new value. */
type ChangeKind = "add" | "update" | "delete";

export interface DiffResult {
  changes: boolean;
  /** input names whose change needs a new VM */
  replaces: string[];
  /** a replace must delete the old VM first (said whenever there is a change: see the header) */
  deleteBeforeReplace: boolean;
  /** input names updated in place */
  update: string[];
  /** each key of replaces and update: how it changed */
  kinds: Record<string, ChangeKind>;
  /** the update takes the running VM down (a shutdown, a reboot): what preview says of it (downtimeOf) */
  downtime?: Downtime;
}

interface DiffOptions {
  urn?: string;
  /**
   * An unconfirmed install that one look showed held (foreseeSettle: there,
   * running, seen before): no wait can settle it, so it is no change by itself.
   */
  installHeld?: boolean;
}

export function diff(id: string, olds: VmState, news: VmInputs, options: DiffOptions = {}): DiffResult {
  const old = parseState(olds, id);
  const changed = (Object.keys(COMPARE) as ChangingInput[]).filter((key) => COMPARE[key](old, news));
  // The bucket is the declaration's: a replace input's change needs a new VM, any other one is an update.
  const replaces: string[] = changed.filter((key) => INPUT_BEHAVIOUR[key] === "replace");
  const update: string[] = changed.filter((key) => INPUT_BEHAVIOUR[key] !== "replace");
  const install = installOutcome(olds);
  if (install === "unconfirmed" && options.installHeld !== true) update.push("installState");
  else if (install === "failed" && news.keepIncompleteInstall !== true) replaces.push("installComplete");
  if (news.adopt === true && replaces.length > 0) throw adoptedReplace(replaces);
  const pinsSameVmid = news.vmid !== undefined && (isUnknown(news.vmid) || news.vmid === old.vmid);
  // A replace makes a new VM; only an update in place shuts this one down for a while.
  const downtime = replaces.length === 0 && update.length > 0 ? downtimeOf(old, news) : undefined;
  if (downtime?.comesBack && news.allowDowntime === false)
    throw refuseDowntime(vmLabel(old.vmid, old.vmName), downtime.causes);
  const changes = replaces.length > 0 || update.length > 0;
  return {
    changes,
    replaces,
    deleteBeforeReplace: changes && (pinsSameVmid || namedForThisResource(news.name, options.urn)),
    update,
    kinds: Object.fromEntries([...replaces, ...update].map((key) => [key, kindOf(key, old, news)])),
    ...(downtime !== undefined ? { downtime } : {}),
  };
}

/**
 * The new VM's name is this resource's own (no name given: this stack's mark,
 * given at install; or the name the previous release derived from the URN,
 * kept): created first, the new VM's create would take the old VM, which
 * carries that name too, for its own interrupted create.
 */
function namedForThisResource(name: string | undefined, urn: string | undefined): boolean {
  if (name === undefined) return true;
  return urn !== undefined && urn !== "" && name === derivedName(urn, LIMITS.nameMax);
}

/**
 * How a changed key changed, against the value on record: the state's own
 * where it keeps the input's value (cpu, node, connection...), else the
 * inputs as last applied. A key of the state alone (installComplete,
 * installState) is an update.
 */
function kindOf(key: string, old: VmState, news: VmInputs): ChangeKind {
  if (!(key in INPUT_BEHAVIOUR)) return "update";
  const now = key === "password" ? (news.password ?? news.passwordHash) : news[key as keyof VmInputs];
  const had = !none(recorded(key, old));
  if (none(now) && !isUnknown(now)) return had ? "delete" : "update";
  return had ? "update" : "add";
}

function recorded(key: string, old: VmState): unknown {
  if (key === "name") return recordedName(old);
  if (key === "password") return old.password ?? old.passwordHash;
  if (key in VmStateSchema.shape) return old[key as keyof VmState];
  return (old.inputs as Record<string, unknown> | undefined)?.[key];
}

/** No value: omitted, empty text, or an empty list (each the same as omitted). */
function none(v: unknown): boolean {
  return v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
}

/** The replace would destroy the adopted VM first, and an adopting create cannot install a new one. */
function adoptedReplace(replaces: string[]): LifecycleError {
  return new LifecycleError(
    `${replaces.join(", ")} changed on a VM declared with adopt: true, which needs a new VM; ` +
      "remove adopt (it only matters for the first up) to let Pulumi replace the VM, or keep the old values",
  );
}

/**
 * How the VM's install ended, from the stored state as it is (read before
 * parsing: installState is kept by the create path and may be newer than this
 * file's schema).
 */
function installOutcome(olds: VmState): "complete" | "failed" | "unconfirmed" {
  const raw = olds as VmState & { installState?: unknown };
  if (raw.installState === "unconfirmed") return "unconfirmed";
  return raw.installComplete === false ? "failed" : "complete";
}
