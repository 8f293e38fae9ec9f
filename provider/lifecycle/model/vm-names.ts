// The names a VM declared without `name` gets, and how a VM is recognised by
// them. go-pve-qemu keeps no tags, so a VM's name is the only mark the
// provider can leave on it, and the mark must be one no other stack can make.
//
// Current names, `<resource>-<mark>-<time>`: `time` is when the install began
// (seconds, base 36) and `mark` is 8 hex digits of an HMAC of the resource's
// URN and that time, keyed by the stack's identity: a random value the stack
// keeps in its own state (the StackIdentity resource), known to no one else.
// Another team running the same project, stack and resource names has
// another identity, so its names never verify here; a VM made by hand has no
// mark. A VM whose name verifies was installed by this very resource of this
// very stack, and its name says when the install began, which bounds what
// the server may still do to it.
//
// Older names, `<resource>-<8 hex of sha256(URN)>`, are still recognised so
// that VMs named by earlier releases keep their names; anyone could compute
// them, so they are never evidence on their own.
import { createHash, createHmac } from "node:crypto";

const HASH_HEX = 8;
const MARK_HEX = 8;
/** Seconds since 1970 in base 36: 6 digits until 2038, 7 until the year 4000. */
const TIME_MAX = 7;
const SHAPE = /^(.+)-([0-9a-f]{8})-([0-9a-z]{1,7})$/;

/** The name for an install of resource `urn` beginning at `startedAt` (ms). */
export function stackName(identity: string, urn: string, startedAt: number, maxLength: number): string {
  const time = Math.floor(startedAt / 1000).toString(36);
  return `${baseOf(urn, maxLength - MARK_HEX - TIME_MAX - 2)}-${mark(identity, urn, time)}-${time}`;
}

/**
 * When the install of the VM with real name `vmName` began, if that name is
 * one this stack's resource `urn` made (the `-<vmid>` the server appends is
 * taken off first); undefined for any other name.
 */
export function readStackName(
  vmName: string,
  vmid: number,
  identity: string,
  urn: string,
  maxLength: number,
): { startedAt: number } | undefined {
  const suffix = `-${vmid}`;
  if (!vmName.endsWith(suffix)) return undefined;
  const m = SHAPE.exec(vmName.slice(0, -suffix.length));
  if (m === null) return undefined;
  const [, base, given, time] = m as unknown as [string, string, string, string];
  if (base !== baseOf(urn, maxLength - MARK_HEX - TIME_MAX - 2) || given !== mark(identity, urn, time)) {
    return undefined;
  }
  return { startedAt: parseInt(time, 36) * 1000 };
}

/** The older default name of the resource with this URN: at most `maxLength` characters. */
export function derivedName(urn: string, maxLength: number): string {
  const hash = createHash("sha256").update(urn).digest("hex").slice(0, HASH_HEX);
  return `${baseOf(urn, maxLength - HASH_HEX - 1)}-${hash}`;
}

/**
 * An older name derived for this resource under another URN (the stack or
 * project was renamed since): same base, another hash. Kept as it is, so a
 * rename replaces nothing; it is then treated as a given name (never adopted
 * on its own).
 */
export function wasDerivedName(name: unknown, urn: string, maxLength: number): boolean {
  const base = baseOf(urn, maxLength - HASH_HEX - 1);
  return (
    typeof name === "string" &&
    name.startsWith(`${base}-`) &&
    /-[0-9a-f]{8}$/.test(name) &&
    name.length === base.length + HASH_HEX + 1
  );
}

function mark(identity: string, urn: string, time: string): string {
  return createHmac("sha256", identity).update(`${urn}\n${time}`).digest("hex").slice(0, MARK_HEX);
}

/** The resource's name, lowercased, other characters as hyphens, cut to `room` characters. */
function baseOf(urn: string, room: number): string {
  const resource = urn.slice(urn.lastIndexOf("::") + 2);
  return (
    resource
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, room)
      .replace(/^-+|-+$/g, "") || "vm"
  );
}
