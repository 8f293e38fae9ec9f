// Replace, update in place, or nothing. Compared against what the VM has and
// the desired values kept in state, never against raw server numbers alone:
// an omitted input equals the default the server applied, a request above a
// limit the server revealed equals that limit, so a second `up` is a no-op.
//
// Decisions:
// - Replace: os, version, name, vmid, user, password, sshPublicKey (only the
//   install sets them).
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
//   created first, then the old VM is deleted.
// - delete-before-replace also when the new VM keeps this resource's derived
//   name (derivedName; the glue passes the URN): created first, the new VM's
//   create would find the old VM carrying the same name and take it for its
//   own interrupted create (and the delete would then remove it). Decided so
//   rather than excluding the old VMID at create, because create is not told
//   which VM the replace will delete. The cost: a replaced VM without a name is
//   gone before its successor exists.
// - An UNKNOWN value (preview) is a change of that property, a replace for a
//   replace property.
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
import {
  endpointKey,
  LifecycleError,
  derivedName,
  LIMITS,
  containsUnknown,
  isUnknown,
  passwordMatches,
  nameFromVmName,
  parseState,
  nodeChange,
  sizeChange,
  targetRunning,
  targetUser,
  triggersChanged,
} from "../model";
import type { ConnectionInput, VmInputs, VmState } from "../model";
import { downtimeOf, refuseDowntime } from "./downtime";
import type { Downtime } from "./downtime";
import { vmLabel } from "../core";

export interface DiffResult {
  changes: boolean;
  /** input names whose change needs a new VM */
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** input names updated in place */
  update: string[];
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
  const replaces = changed(replaceChanges(old, news));
  const update = changed(updateChanges(old, news));
  const install = installOutcome(olds);
  if (install === "unconfirmed" && options.installHeld !== true) update.push("installState");
  else if (install === "failed" && news.keepIncompleteInstall !== true) replaces.push("installComplete");
  if (news.adopt === true && replaces.length > 0) throw adoptedReplace(replaces);
  const pinsSameVmid = news.vmid !== undefined && (isUnknown(news.vmid) || news.vmid === old.vmid);
  // A replace makes a new VM; only an update in place shuts this one down for a while.
  const downtime = replaces.length === 0 && update.length > 0 ? downtimeOf(old, news) : undefined;
  if (downtime?.comesBack && news.allowDowntime === false)
    throw refuseDowntime(vmLabel(old.vmid, old.vmName), downtime.causes);
  return {
    changes: replaces.length > 0 || update.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0 && (pinsSameVmid || namedForThisResource(news.name, options.urn)),
    update,
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

/** Each property with whether it changed, in the order the result lists them. */
type Changes = Array<[key: string, changed: boolean]>;

function changed(changes: Changes): string[] {
  return changes.filter(([, c]) => c).map(([key]) => key);
}

/** The properties only the install sets: a change needs a new VM. */
function replaceChanges(old: VmState, news: VmInputs): Changes {
  const was = old.inputs ?? {};
  const oldOs = was.os ?? old.os;
  const oldVersion = was.version ?? old.version;
  // A key is compared once inputs are on record.
  const otherKey = old.inputs !== undefined && normKey(news.sshPublicKey) !== normKey(was.sshPublicKey);
  return [
    ["os", isUnknown(news.os) || (oldOs !== undefined && news.os !== oldOs)],
    ["version", isUnknown(news.version) || (oldVersion !== undefined && news.version !== oldVersion)],
    ["name", isUnknown(news.name) || nameChanged(old, news.name)],
    ["vmid", isUnknown(news.vmid) || (news.vmid !== undefined && news.vmid !== old.vmid)],
    ["user", isUnknown(news.user) || userChanged(old, oldOs, news)],
    ["password", isUnknown(news.password) || isUnknown(news.passwordHash) || otherPassword(old, news)],
    ["sshPublicKey", isUnknown(news.sshPublicKey) || otherKey],
  ];
}

/**
 * An omitted password, or one not on record, is no change (see the header).
 * Either side may be a password or, with storePassword false, its hash (the
 * check keeps the stored hash while the password matches it).
 */
function otherPassword(old: VmState, news: VmInputs): boolean {
  if (news.password !== undefined) {
    if (old.password !== undefined) return news.password !== old.password;
    return old.passwordHash !== undefined && !passwordMatches(news.password, old.passwordHash);
  }
  if (news.passwordHash !== undefined) {
    if (old.password !== undefined) return !passwordMatches(old.password, news.passwordHash);
    return old.passwordHash !== undefined && news.passwordHash !== old.passwordHash;
  }
  return false;
}

/** Against the recorded name input, or the one behind the real name of a state without inputs. */
function nameChanged(old: VmState, name: string | undefined): boolean {
  if (old.inputs === undefined && old.vmName === undefined) return false;
  const oldName = old.inputs !== undefined ? old.inputs.name : nameFromVmName(old.vmName, old.vmid);
  return (name || undefined) !== (oldName || undefined);
}

/** The login user the server would give, against the one the VM has. */
function userChanged(old: VmState, oldOs: string | undefined, news: VmInputs): boolean {
  const oldUser = old.user ?? targetUser(old.inputs?.user, oldOs);
  const newOs = isUnknown(news.os) ? oldOs : news.os;
  return oldUser !== undefined && targetUser(news.user, newOs) !== oldUser;
}

/** The properties changed in place. */
function updateChanges(old: VmState, news: VmInputs): Changes {
  const sizes = (["cpu", "memoryMb", "diskGb"] as const).map((key): [string, boolean] => [
    key,
    isUnknown(news[key]) || sizeChange(old, key, news[key]) !== undefined,
  ]);
  const otherPower = old.running !== undefined && targetRunning(news.running) !== old.running;
  return [
    ...sizes,
    ["node", isUnknown(news.node) || nodeChange(old, news.node) !== undefined],
    ["running", isUnknown(news.running) || otherPower],
    ["rebootTriggers", containsUnknown(news.rebootTriggers) || triggersChanged(old, news.rebootTriggers)],
    ["connection", connectionChanged(old, news.connection)],
    ["storePassword", storageChanged(old, news)],
  ];
}

/**
 * Where the password is kept changes: switched to storePassword false, the
 * stored password leaves state; switched back, a given password is stored
 * again. No server call either way: the VM keeps its password.
 */
function storageChanged(old: VmState, news: VmInputs): boolean {
  if (isUnknown(news.storePassword)) return true;
  if (news.storePassword === false) return old.password !== undefined;
  return old.passwordHash !== undefined && news.password !== undefined;
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

function normKey(key: string | undefined): string | undefined {
  const k = key?.trim();
  return k === "" ? undefined : k;
}

/** Only fields set explicitly in the inputs count (see the header). */
function connectionChanged(old: VmState, conn: ConnectionInput | undefined): boolean {
  if (conn === undefined) return false;
  if (containsUnknown(conn)) return true;
  const stored = old.connection;
  if (stored === undefined) return conn.endpoint !== undefined;
  if (conn.endpoint !== undefined && endpointKey(conn.endpoint) !== endpointKey(stored.endpoint)) return true;
  if (conn.token !== undefined && conn.token !== stored.token) return true;
  if (conn.caCert !== undefined && conn.caCert !== stored.caCert) return true;
  if (conn.headers !== undefined && !sameRecord(conn.headers, stored.headers ?? {})) return true;
  return false;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
