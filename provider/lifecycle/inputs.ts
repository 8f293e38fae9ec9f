// The resource's inputs: one zod schema (the type is inferred from it), its
// limits and defaults, and the messages it fails with. check.ts validates
// with it.
//
// Values not known yet at preview arrive as the UNKNOWN marker (translated from
// the engine's by the glue); they are never validated (they are checked again
// once known).
import { z } from "zod";
import { OsSchema } from "../client";
import type { Os } from "../client";

/**
 * The lifecycle's marker for an input that is not known yet (preview). The
 * glue translates the engine's own marker to this one and back
 * (provider/resource/unknowns.ts): nothing here knows Pulumi's.
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

function intField(prop: string, min: number, max: number | undefined, note = "") {
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

function boolField(prop: string) {
  return z.boolean({ error: (iss) => `${prop}: ${show(iss.input)} is not a boolean; allowed true or false` });
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

function labelField(prop: string, max: number, why: string) {
  const rule = `use letters, digits and hyphens (not first or last), at most ${max} characters${why}`;
  return z
    .string({ error: (iss) => `${prop}: ${show(iss.input)} is not a string; ${rule}` })
    .refine((s) => LABEL.test(s) && s.length <= max, {
      error: (iss) => `${prop}: ${show(iss.input)} is not allowed; ${rule}`,
    });
}

/** Shorter passwords are refused: a short secret cannot be told from ordinary text, so logs could not mask it (redact.ts). */
export const PASSWORD_MIN = 8;

const LINUX_USER = /^[a-z_][a-z0-9_-]*$/;
const SSH_KEY = /^[A-Za-z0-9@.-]+ [A-Za-z0-9+/]+={0,3}(?: [^\r\n]*)?$/;
// Control characters (newlines included) would break the server's command line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

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

const osList = OsSchema.options.join(", ");

// ---- the schema ---------------------------------------------------------------

const ConnectionInputSchema = z.object(
  {
    /** Base URL, e.g. http://10.0.0.5:8080. Default: stack config goPveQemu:endpoint, else GO_PVE_QEMU_ENDPOINT. */
    endpoint: z
      .string({
        error: (iss) =>
          `connection.endpoint: ${show(iss.input)} is not a string; give an http(s) URL such as http://10.0.0.5:8080`,
      })
      .refine(isHttpUrl, {
        error: (iss) =>
          `connection.endpoint: ${show(withoutCredentials(String(iss.input)))} is not an http(s) URL; give one such as http://10.0.0.5:8080`,
      })
      .refine((s) => !carriesCredentials(s), {
        error: (iss) => `connection.endpoint: ${show(withoutCredentials(String(iss.input)))}: ${CREDENTIALS_HELP}`,
      })
      .optional(),
    /** Bearer token for a server behind an authenticating proxy (secret; never shown). Default: goPveQemu:token, else GO_PVE_QEMU_TOKEN. */
    token: z.string({ error: "connection.token: must be a string (its value is not shown)" }).optional(),
    /** Extra headers sent with every request (values never shown). */
    headers: z
      .record(
        z.string(),
        z.string({ error: "connection.headers: must be an object of string values (values not shown)" }),
        {
          error: "connection.headers: must be an object of string values (values not shown)",
        },
      )
      .optional(),
    /** PEM CA certificate(s) to trust for an https endpoint. */
    caCert: z
      .string({
        error: (iss) =>
          `connection.caCert: ${show(iss.input)} is not a string; give PEM text (-----BEGIN CERTIFICATE-----...)`,
      })
      .refine((s) => s.includes("-----BEGIN"), {
        error: "connection.caCert: is not PEM text; give one or more -----BEGIN CERTIFICATE----- blocks",
      })
      .optional(),
  },
  { error: (iss) => `connection: ${show(iss.input)} is not an object; allowed keys endpoint, token, headers, caCert` },
);

// The JSDoc on each property is what editors show for `VmArgs` (derived from
// this schema in provider/resource/vm.ts). Limits and allowed values are not
// repeated here: they are in LIMITS and the schema, and the README's input
// table is generated from them (scripts/input-table.ts).
export const VmInputsSchema = z.object({
  /** The operating system. Changing it replaces the VM. */
  os: z.enum(OsSchema.options, {
    error: (iss) =>
      iss.input === undefined
        ? `os: is required; allowed ${osList}`
        : `os: ${show(iss.input)} is not supported; allowed ${osList}`,
  }),
  /** The OS version (e.g. "24.04" for ubuntu). Changing it replaces the VM. */
  version: z.string({
    error: (iss) =>
      iss.input === undefined
        ? 'version: is required (e.g. "24.04" for ubuntu)'
        : `version: ${show(iss.input)} is not a string`,
  }),
  /** Name prefix; the server names the VM `<name>-<vmid>`. Changing it replaces the VM. */
  name: labelField(
    "name",
    LIMITS.nameMax,
    ` (the server appends "-<vmid>", and the whole name must fit a 63-character DNS label)`,
  ).optional(),
  /** Pinned VMID, also the last octet of the VM's IP. Default: the server picks one. Changing it replaces the VM. */
  vmid: intField(
    "vmid",
    LIMITS.vmid.min,
    LIMITS.vmid.max,
    " (the VMID is also the last octet of the VM's IP)",
  ).optional(),
  /** The Proxmox node to run on (checked against the cluster at preview). Changing it migrates the VM. */
  node: labelField("node", LIMITS.nodeMax, " (a Proxmox node name)").optional(),
  /** vCPUs. Updated in place (the VM is shut down and started again). */
  cpu: intField("cpu", LIMITS.cpu.min, LIMITS.cpu.max).optional(),
  /** Memory in MB. Updated in place. */
  memoryMb: intField("memoryMb", LIMITS.memoryMb.min, LIMITS.memoryMb.max).optional(),
  /** Disk in GB. Grows in place; cannot shrink. */
  diskGb: intField("diskGb", LIMITS.diskGb.min, undefined).optional(),
  /** Login user (default by OS). Changing it replaces the VM. */
  user: z
    .string({ error: (iss) => `user: ${show(iss.input)} is not a string` })
    .refine((s) => LINUX_USER.test(s) && s.length <= LIMITS.userMax, {
      error: (iss) =>
        `user: ${show(iss.input)} is not a valid Linux user name; use lowercase letters, digits, "_" and "-", starting with a letter or "_", at most ${LIMITS.userMax} characters`,
    })
    .optional(),
  /** Login password (secret; its value is never shown). Default: a generated one, a secret output. Changing it replaces the VM. */
  password: z
    .string({ error: "password: must be a string (its value is not shown)" })
    .min(PASSWORD_MIN, {
      error: `password: must be at least ${PASSWORD_MIN} characters (omit it to get a generated one)`,
    })
    .refine((s) => !CONTROL.test(s), { error: "password: must not contain newlines or control characters" })
    .optional(),
  /**
   * false: the password never reaches Pulumi's state, encrypted or not; state
   * keeps a salted hash of it, so that a changed password is still a change.
   * A password must then be given (none is generated). Default true.
   */
  storePassword: boolField("storePassword").optional(),
  /** One OpenSSH public key line for the user. Changing it replaces the VM. */
  sshPublicKey: z
    .string({ error: (iss) => `sshPublicKey: ${show(iss.input)} is not a string` })
    .refine((s) => SSH_KEY.test(s.trim()), {
      error: 'sshPublicKey: is not one OpenSSH public key line; give e.g. "ssh-ed25519 AAAAC3... me@host"',
    })
    .optional(),
  /** Desired power state (default true). */
  running: boolField("running").optional(),
  /** Any change reboots a running VM. */
  rebootTriggers: z
    .array(
      z.string({
        error: (iss) => `rebootTriggers: item ${show(iss.input)} is not a string; allowed a list of strings`,
      }),
      {
        error: (iss) => `rebootTriggers: ${show(iss.input)} is not a list; allowed a list of strings`,
      },
    )
    .optional(),
  /** Where and how to reach the server; the one a VM was created with is kept for refresh and delete. */
  connection: ConnectionInputSchema.optional(),
  /** When an install fails after the VM was made: true destroys it at once; false (default) keeps it in state. */
  destroyOnCreateFailure: boolField("destroyOnCreateFailure").optional(),
  /**
   * Keep a VM whose install did not finish as it is. By default the next `up`
   * replaces such a VM (its initialisation may never have run).
   */
  keepIncompleteInstall: boolField("keepIncompleteInstall").optional(),
  /** Take the existing VM with `vmid` under management instead of installing one (import by VMID). */
  adopt: boolField("adopt").optional(),
});

/**
 * The inputs after check. At preview any value may still be UNKNOWN. With
 * `storePassword: false`, check puts `passwordHash` in place of `password`
 * (never an input of the program's: the checked inputs are what state keeps).
 */
export type VmInputs = DeclaredInputs & { passwordHash?: string };
/** The inputs as a program declares them (the schema's shape). */
export type DeclaredInputs = z.infer<typeof VmInputsSchema>;
export type ConnectionInput = z.infer<typeof ConnectionInputSchema>;

/** Input names, in schema order. */
export const INPUT_KEYS = Object.keys(VmInputsSchema.shape) as Array<keyof DeclaredInputs>;
