// `check`: the inputs against the schema (VmInputsSchema) and against what came
// before, reporting EVERY bad property at once, with its name and what is
// allowed, before anything talks to the server. Values not known yet at
// preview (UNKNOWN) are never validated: they are checked again once known.
//
// Each rule beyond the schema is one function below; a rule about a property
// the schema already failed says nothing (one reason per property).
import type { Os } from "../../client";
import { SUPPORTED_VERSIONS } from "../../client";
import {
  NO_ENDPOINT_HELP,
  wasDerivedName,
  CREDENTIALS_HELP,
  LIMITS,
  carriesCredentials,
  isHttpUrl,
  isUnknown,
  show,
  withoutCredentials,
  INPUT_KEYS,
  VmInputsSchema,
} from "../model";
import type { ConnectionDefaults, VmInputs } from "../model";
import { withheldPasswordFailure, withheldPasswordInConfig, withholdPassword } from "./withheld-password";

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface CheckResult {
  inputs: VmInputs;
  failures: CheckFailure[];
  /**
   * storePassword false: the password, taken out of `inputs` (which hold its
   * hash instead), for the create of this deployment alone.
   */
  withheldPassword?: string;
}

export interface CheckOptions {
  /** When given, a missing endpoint (no connection.endpoint and no default) is reported here, not at create. */
  connectionDefaults?: ConnectionDefaults;
  /** Where the default endpoint comes from, for messages (e.g. "stack config goPveQemu:endpoint"). */
  defaultEndpointSource?: string;
  /** The resource's URN: a resource that has the name the previous release derived from it keeps it. */
  urn?: string;
  /**
   * The stack config key holding this value, if any. Pulumi keeps a dynamic
   * provider's whole stack config in state, so a password taken from there
   * cannot be kept out of it (storePassword false is refused for it).
   */
  configKeyOf?: (value: string) => string | undefined;
}

/** Names the Vm resource declares as outputs only; the glue passes them empty. */
const OUTPUT_ONLY: ReadonlySet<string> = new Set(["ip", "vmName"]);

type Inputs = Record<string, unknown>;

/**
 * Validates new inputs against the schema and against the old inputs (a disk
 * cannot shrink). Returns the inputs to use (only known keys; null means
 * omitted) and every failure.
 */
export function check(olds: unknown, news: unknown, options?: CheckOptions): CheckResult {
  const raw = isRecord(news) ? news : {};
  const inputs = knownKeys(raw);
  // Validated without unknown values: they are checked once known.
  const known = withoutUnknowns(inputs);
  const failures: CheckFailure[] = isRecord(news)
    ? []
    : [{ property: "", reason: `the inputs are ${show(news)}, not an object` }];
  failures.push(...unknownProperties(raw), ...schemaFailures(inputs, known));
  const failed = new Set(failures.map((f) => f.property));
  const rules = [
    versionFailure(known, failed),
    adoptFailure(inputs, known, failed),
    shrinkFailure(olds, known, failed),
    options === undefined ? undefined : endpointFailure(inputs, options, failed),
    withheldPasswordFailure(inputs, failed),
  ];
  failures.push(...rules.filter((f): f is CheckFailure => f !== undefined));
  const name = nameToKeep(olds, inputs, options?.urn);
  if (name !== undefined) inputs.name = name;
  const inConfig = withheldPasswordInConfig(inputs, options?.configKeyOf);
  if (inConfig !== undefined) failures.push(inConfig);
  const withheldPassword = withholdPassword(olds, inputs);
  return { inputs: inputs as VmInputs, failures, ...(withheldPassword !== undefined ? { withheldPassword } : {}) };
}

/** Only the inputs we know; null is "not set" (Pulumi passes null for some omitted values). */
function knownKeys(raw: Inputs): Inputs {
  const inputs: Inputs = {};
  for (const key of INPUT_KEYS) {
    const v = raw[key];
    if (v !== undefined && v !== null) inputs[key] = isRecord(v) ? dropNulls(v) : v;
  }
  return inputs;
}

/** A property the resource does not have (a typo, JSON config) would be silently ignored and the VM get a default: refuse it. */
function unknownProperties(raw: Inputs): CheckFailure[] {
  return Object.keys(raw)
    .filter(
      (key) =>
        !(INPUT_KEYS as string[]).includes(key) && !OUTPUT_ONLY.has(key) && raw[key] !== null && raw[key] !== undefined,
    )
    .map((key) => ({ property: key, reason: unknownPropertyReason(key) }));
}

function unknownPropertyReason(key: string): string {
  const lower = key.toLowerCase();
  const near = INPUT_KEYS.find((k) => lower.startsWith(k.toLowerCase()) || k.toLowerCase().startsWith(lower));
  const hint = near === undefined ? "" : ` (did you mean ${near}?)`;
  return `${key}: is not an input of Vm${hint}; the inputs are ${INPUT_KEYS.join(", ")}`;
}

/** The schema's complaints, the first per property (the most telling). */
function schemaFailures(inputs: Inputs, known: Inputs): CheckFailure[] {
  const parsed = VmInputsSchema.safeParse(known);
  if (parsed.success) return [];
  // A required value that is unknown was left out of the copy: not a failure.
  const seen = new Set<string>(Object.keys(inputs).filter((k) => isUnknown(inputs[k])));
  const failures: CheckFailure[] = [];
  for (const issue of parsed.error.issues) {
    const property = propertyOf(issue.path);
    if (seen.has(property)) continue;
    seen.add(property);
    failures.push({ property, reason: issue.message });
  }
  return failures;
}

/** os/version pairs: list the versions of the given os. */
function versionFailure(known: Inputs, failed: Set<string>): CheckFailure | undefined {
  const { os, version } = known;
  if (typeof os !== "string" || failed.has("os") || typeof version !== "string" || failed.has("version")) return;
  const allowed = SUPPORTED_VERSIONS[os as Os] as readonly string[];
  if (allowed.includes(version)) return;
  return {
    property: "version",
    reason: `version: ${show(version)} is not supported for ${os}; allowed ${allowed.join(", ")}`,
  };
}

/** Adoption names the VM by its VMID. */
function adoptFailure(inputs: Inputs, known: Inputs, failed: Set<string>): CheckFailure | undefined {
  if (known.adopt !== true || failed.has("adopt") || inputs.vmid !== undefined) return;
  return { property: "adopt", reason: "adopt: needs vmid; the VM to adopt is the one with that VMID" };
}

/** The server can only grow a disk. */
function shrinkFailure(olds: unknown, known: Inputs, failed: Set<string>): CheckFailure | undefined {
  const oldDisk = isRecord(olds) ? olds.diskGb : undefined;
  const newDisk = known.diskGb;
  if (typeof oldDisk !== "number" || typeof newDisk !== "number" || failed.has("diskGb") || newDisk >= oldDisk) return;
  return {
    property: "diskGb",
    reason: `diskGb cannot shrink from ${oldDisk} to ${newDisk}: the server can only grow a disk; keep ${oldDisk} or more, or replace the VM`,
  };
}

/** No endpoint anywhere, or a default that is no URL: say so now rather than at create. */
function endpointFailure(inputs: Inputs, options: CheckOptions, failed: Set<string>): CheckFailure | undefined {
  if (failed.has("connection") || failed.has("connection.endpoint")) return;
  const conn = inputs.connection;
  const own = isRecord(conn) ? conn.endpoint : undefined;
  if (isUnknown(conn) || isUnknown(own) || (own !== undefined && own !== "")) return;
  const fallback = options.connectionDefaults?.endpoint;
  if (typeof fallback !== "string" || fallback === "") {
    return { property: "connection.endpoint", reason: `connection.endpoint: ${NO_ENDPOINT_HELP}` };
  }
  const from = options.defaultEndpointSource ?? "the default endpoint";
  const shown = show(withoutCredentials(fallback));
  if (!isHttpUrl(fallback)) {
    return {
      property: "connection.endpoint",
      reason: `connection.endpoint: ${from} is ${shown}, which is not an http(s) URL; give one such as http://10.0.0.5:8080`,
    };
  }
  if (carriesCredentials(fallback)) {
    return { property: "connection.endpoint", reason: `connection.endpoint: ${from} is ${shown}: ${CREDENTIALS_HELP}` };
  }
  return undefined;
}

/**
 * No name: the VM gets this stack's marked name when it is installed
 * (stackName; the mark includes when the install began, so it is not
 * known here). A resource that has the name the previous release derived
 * from its URN keeps it, even under a renamed stack: upgrading replaces
 * nothing.
 */
function nameToKeep(olds: unknown, inputs: Inputs, urn: string | undefined): string | undefined {
  if (inputs.name !== undefined || !urn || inputs.adopt === true) return undefined;
  const isNew = !isRecord(olds) || Object.keys(olds).length === 0;
  const oldName = isRecord(olds) ? olds.name : undefined;
  if (!isNew && wasDerivedName(oldName, urn, LIMITS.nameMax)) return oldName as string;
  return undefined;
}

/** "cpu", "connection.endpoint"; list items and header names are reported as their list / object. */
function propertyOf(path: PropertyKey[]): string {
  const [top, second] = path;
  if (top === undefined) return "";
  return top === "connection" && typeof second === "string" ? `connection.${second}` : String(top);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function dropNulls(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

/** A copy with UNKNOWN values left out, one level deep (connection); list items and header values are strings anyway. */
function withoutUnknowns(inputs: Inputs): Inputs {
  const out: Inputs = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (isUnknown(v)) continue;
    out[k] = isRecord(v) ? Object.fromEntries(Object.entries(v).filter(([, iv]) => !isUnknown(iv))) : v;
  }
  return out;
}
