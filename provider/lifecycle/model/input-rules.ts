// The rules every input value is held to: the limits and defaults in one
// place, the field validators with their messages (each names the property
// and the allowed values), the endpoint's credential checks, and the marker
// for values not known until the deployment (never validated at preview;
// checked again once known).
import { z } from "zod";
import { OsSchema } from "../../client";
import type { Os } from "../../client";

/**
 * The lifecycle's marker for an input that is not known yet (preview). The
 * glue translates the engine's own marker to this one and back
 * (fromEngine, toEngine): nothing here knows Pulumi's.
 */
export const UNKNOWN = "(not known until the deployment)";

export function isUnknown(v: unknown): boolean {
  return v === UNKNOWN;
}

/** True when the value, or anything inside it, is UNKNOWN. */
export function containsUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(containsUnknown);
  if (v !== null && typeof v === "object") return Object.values(v).some(containsUnknown);
  return false;
}

// ---- limits, in one place ------------------------------------------------

export const LIMITS = {
  cpu: { min: 1, max: 32 },
  memoryMb: { min: 512, max: 32768 },
  diskGb: { min: 16 },
  /** The VMID is also the last octet of the VM's IP. */
  vmid: { min: 100, max: 254 },
  /** The server names the VM `<name>-<vmid>`; that must stay a 63-character DNS label. */
  nameMax: 59,
  nodeMax: 63,
  userMax: 32,
} as const;

/**
 * The documented defaults for omitted cpu / memoryMb / diskGb. create sends
 * them explicitly (see installRequest), so they are what an omitted input means.
 */
export const SERVER_DEFAULTS = { cpu: 2, memoryMb: 2048, diskGb: 16 } as const;

/** The default login user per OS (the server's initConfig). */
export function defaultUser(os: Os | string | undefined): string | undefined {
  switch (os) {
    case "debian":
      return "debian";
    case "ubuntu":
      return "ubuntu";
    case "rockylinux":
      return "rocky";
    default:
      return undefined;
  }
}

// ---- messages ---------------------------------------------------------------

/** A value as it should appear in a message (never used for secrets). */
export function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return String(v);
}

export function intField(prop: string, min: number, max: number | undefined, note = "") {
  const allowed = max === undefined ? `integers >= ${min}` : `${min}..${max}`;
  const tail = `; allowed ${allowed}${note}`;
  let s = z
    .number({ error: (iss) => `${prop}: ${show(iss.input)} is not a number${tail}` })
    .int({ error: (iss) => `${prop}: ${show(iss.input)} is not an integer${tail}` })
    .min(min, {
      error: (iss) => `${prop}: ${show(iss.input)} is ${max === undefined ? "too small" : "out of range"}${tail}`,
    });
  if (max !== undefined) s = s.max(max, { error: (iss) => `${prop}: ${show(iss.input)} is out of range${tail}` });
  return s;
}

export function boolField(prop: string) {
  return z.boolean({ error: (iss) => `${prop}: ${show(iss.input)} is not a boolean; allowed true or false` });
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

export function labelField(prop: string, max: number, why: string) {
  const rule = `use letters, digits and hyphens (not first or last), at most ${max} characters${why}`;
  return z
    .string({ error: (iss) => `${prop}: ${show(iss.input)} is not a string; ${rule}` })
    .refine((s) => LABEL.test(s) && s.length <= max, {
      error: (iss) => `${prop}: ${show(iss.input)} is not allowed; ${rule}`,
    });
}

/** Shorter passwords are refused: a short secret cannot be told from ordinary text, so logs could not mask it. */
export const PASSWORD_MIN = 8;

export const LINUX_USER = /^[a-z_][a-z0-9_-]*$/;
export const SSH_KEY = /^[A-Za-z0-9@.-]+ [A-Za-z0-9+/]+={0,3}(?: [^\r\n]*)?$/;
// Control characters (newlines included) would break the server's command line.
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f]/;

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/**
 * An endpoint with a user name or password in it (`http://user:pass@host`).
 * The client would not send them (it connects to the origin), and the
 * endpoint is printed in messages, so such an endpoint is refused.
 */
export function carriesCredentials(s: string): boolean {
  try {
    const u = new URL(s);
    return u.username !== "" || u.password !== "";
  } catch {
    return false;
  }
}

/** The endpoint as it may be shown: any user name or password replaced by `***`. */
export function withoutCredentials(s: string): string {
  try {
    const u = new URL(s);
    if (u.username === "" && u.password === "") return s;
    return `${u.protocol}//***@${u.host}${u.pathname === "/" && !s.endsWith("/") ? "" : u.pathname}`;
  } catch {
    return s;
  }
}

/** Why credentials in the endpoint are refused, and where they go instead. */
export const CREDENTIALS_HELP =
  "it carries a user name or password (user:password@), which would not be sent and would be printed in logs; " +
  "give the bare URL and put the credentials in connection.headers (e.g. authorization: Basic <base64>) " +
  "or connection.token (goPveQemu:token), which are kept secret";

export const osList = OsSchema.options.join(", ");
