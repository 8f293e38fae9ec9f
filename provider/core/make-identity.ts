// A stack's identity: 128 random bits, made once and kept in the stack's own
// state (by the StackIdentity resource on the dynamic provider, as an input of
// the provider on the resource plugin). It keys the marks in VM names and this
// machine's install journal.
import { randomBytes } from "node:crypto";

/** A new identity, as 32 hex digits. */
export function newIdentity(): string {
  return randomBytes(16).toString("hex");
}
