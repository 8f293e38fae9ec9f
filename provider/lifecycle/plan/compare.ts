// One comparison per input whose change is a change (model/input-behaviour.ts:
// every input not declared `never`), each against what the VM has and the
// desired values kept in state (the rules: diff.ts's header). Which bucket a
// changed input lands in, replace or update, is the declaration's, not this
// file's. The table is typed by the declaration: a changing input without a
// comparison is a type error. Its order is the order the diff lists keys in.
import {
  endpointKey,
  containsUnknown,
  isUnknown,
  passwordMatches,
  nameFromVmName,
  nodeChange,
  sizeChange,
  targetRunning,
  targetUser,
  triggersChanged,
} from "../model";
import type { ChangingInput, ConnectionInput, VmInputs, VmState } from "../model";

type Compare = (old: VmState, news: VmInputs) => boolean;

const oldOs = (old: VmState) => old.inputs?.os ?? old.os;
const oldVersion = (old: VmState) => old.inputs?.version ?? old.version;
const size =
  (key: "cpu" | "memoryMb" | "diskGb"): Compare =>
  (old, news) =>
    isUnknown(news[key]) || sizeChange(old, key, news[key]) !== undefined;

/** Each changing input: whether `news` changes it. An UNKNOWN value (preview) is a change. */
export const COMPARE: Record<ChangingInput, Compare> = {
  os: (old, news) => isUnknown(news.os) || (oldOs(old) !== undefined && news.os !== oldOs(old)),
  version: (old, news) =>
    isUnknown(news.version) || (oldVersion(old) !== undefined && news.version !== oldVersion(old)),
  name: (old, news) => isUnknown(news.name) || nameChanged(old, news.name),
  vmid: (old, news) => isUnknown(news.vmid) || (news.vmid !== undefined && news.vmid !== old.vmid),
  user: (old, news) => isUnknown(news.user) || userChanged(old, news),
  password: (old, news) => isUnknown(news.password) || isUnknown(news.passwordHash) || otherPassword(old, news),
  // A key is compared once inputs are on record.
  sshPublicKey: (old, news) =>
    isUnknown(news.sshPublicKey) ||
    (old.inputs !== undefined && normKey(news.sshPublicKey) !== normKey(old.inputs.sshPublicKey)),
  cpu: size("cpu"),
  memoryMb: size("memoryMb"),
  diskGb: size("diskGb"),
  node: (old, news) => isUnknown(news.node) || nodeChange(old, news.node) !== undefined,
  running: (old, news) =>
    isUnknown(news.running) || (old.running !== undefined && targetRunning(news.running) !== old.running),
  rebootTriggers: (old, news) => containsUnknown(news.rebootTriggers) || triggersChanged(old, news.rebootTriggers),
  connection: (old, news) => connectionChanged(old, news.connection),
  storePassword: (old, news) => storageChanged(old, news),
};

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

/** The name on record: the name input, or the one behind the real name of a state without inputs. */
export function recordedName(old: VmState): string | undefined {
  const name = old.inputs !== undefined ? old.inputs.name : nameFromVmName(old.vmName, old.vmid);
  return name || undefined;
}

function nameChanged(old: VmState, name: string | undefined): boolean {
  if (old.inputs === undefined && old.vmName === undefined) return false;
  return (name || undefined) !== recordedName(old);
}

/** The login user the server would give, against the one the VM has. */
function userChanged(old: VmState, news: VmInputs): boolean {
  const oldUser = old.user ?? targetUser(old.inputs?.user, oldOs(old));
  const newOs = isUnknown(news.os) ? oldOs(old) : news.os;
  return oldUser !== undefined && targetUser(news.user, newOs) !== oldUser;
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
