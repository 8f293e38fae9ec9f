// A VM without a password input gets a strong random one: never the server's
// literal default `passwd`.
import { randomBytes } from "node:crypto";

/** 24 URL-safe characters (144 random bits). */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
