// The default name of a resource declared without one (see identity.ts for
// why): `<resource name, sanitised>-<8 hex of sha256(URN)>`. Its own module
// with no lifecycle imports, so check() can use it without an import cycle.
import { createHash } from "node:crypto";

const HASH_HEX = 8;

/** The default name of the resource with this URN: at most `maxLength` characters, letters, digits and hyphens. */
export function derivedName(urn: string, maxLength: number): string {
  const resource = urn.slice(urn.lastIndexOf("::") + 2);
  const hash = createHash("sha256").update(urn).digest("hex").slice(0, HASH_HEX);
  const room = maxLength - HASH_HEX - 1;
  const base =
    resource
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .slice(0, room)
      .replace(/^-+|-+$/g, "") || "vm";
  return `${base}-${hash}`;
}
