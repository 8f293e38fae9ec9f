// The default name of a resource declared without one (see identity.ts for
// why): `<resource name, sanitised>-<8 hex of sha256(URN)>`. Its own module
// with no lifecycle imports, so check() can use it without an import cycle.
import { createHash } from "node:crypto";

const HASH_HEX = 8;

/** The default name of the resource with this URN: at most `maxLength` characters, letters, digits and hyphens. */
export function derivedName(urn: string, maxLength: number): string {
  const hash = createHash("sha256").update(urn).digest("hex").slice(0, HASH_HEX);
  return `${baseOf(urn, maxLength)}-${hash}`;
}

/**
 * A name derived for this resource under another URN (the stack or project
 * was renamed since): same base, another hash. Kept as it is, so a rename
 * replaces nothing; it is then treated as a given name (never adopted on its own).
 */
export function wasDerivedName(name: unknown, urn: string, maxLength: number): boolean {
  return (
    typeof name === "string" &&
    name.startsWith(`${baseOf(urn, maxLength)}-`) &&
    /-[0-9a-f]{8}$/.test(name) &&
    name.length === baseOf(urn, maxLength).length + HASH_HEX + 1
  );
}

function baseOf(urn: string, maxLength: number): string {
  const resource = urn.slice(urn.lastIndexOf("::") + 2);
  const room = maxLength - HASH_HEX - 1;
  return (
    resource
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, room)
      .replace(/^-+|-+$/g, "") || "vm"
  );
}
