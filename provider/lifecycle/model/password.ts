// Passwords: a VM without a password input gets a strong random one (never
// the server's literal default `passwd`); with `storePassword: false` the
// state keeps only a salted hash of the password, enough to tell whether a
// later password is the same one, and nothing to log in with.
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

/** 24 URL-safe characters (144 random bits). */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

/** scrypt's default cost (N 2^14, r 8, p 1: 16 MiB and tens of milliseconds per hash), a 16-byte salt. */
const SCHEME = "scrypt";
const KEY_LENGTH = 32;

/** `scrypt$<salt>$<hash>` (base64url): a fresh salt each time, so equal passwords give different hashes. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return [SCHEME, salt.toString("base64url"), scryptSync(password, salt, KEY_LENGTH).toString("base64url")].join("$");
}

/** Whether `password` is the one `hash` was made from; false for anything that is not such a hash. */
export function passwordMatches(password: string, hash: string): boolean {
  const [scheme, salt, key, ...rest] = hash.split("$");
  if (scheme !== SCHEME || salt === undefined || key === undefined || rest.length > 0) return false;
  const want = Buffer.from(key, "base64url");
  if (want.length !== KEY_LENGTH) return false;
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, "base64url"), KEY_LENGTH), want);
}
