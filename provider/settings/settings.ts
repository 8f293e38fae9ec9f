// Provider-wide settings: stack config under the `goPveQemu:` namespace, then
// the environment. The engine hands the dynamic provider every config value
// in `configure`, numbers as strings, so they are coerced and checked here,
// once, with a message that names the key, before any operation relies on
// them.
import { VmInputsSchema } from "../lifecycle";
import type { ConnectionDefaults, DowntimeRules, Timing } from "../lifecycle";
import { Millis } from "./config-schema";

/** The dynamic provider's config namespace; the resource plugin reads the same keys under its package name. */
export const DYNAMIC_NS = "goPveQemu";
/** A preview waits at most this long for the server before it warns and goes on. */
const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

/** Timing keys of the lifecycle that stack config may override, in milliseconds. */
const TIMING_KEYS = [
  "pollIntervalMs",
  "rebootWatchIntervalMs",
  "shutdownTimeoutMs",
  "stopTimeoutMs",
  "followTimeoutMs",
  "settleWaitMs",
  "imageDownloadBoundMs",
  "initScriptBoundMs",
  "migrateBoundMs",
  "commandBoundMs",
  "sshWaitBoundMs",
  "confirmTimeoutMs",
  "goneTimeoutMs",
] as const satisfies readonly (keyof Timing)[];

export interface ProviderSettings {
  connection: ConnectionDefaults;
  /** Where connection.endpoint came from, for messages. */
  endpointSource?: string;
  /** Where the default token came from, for messages. */
  tokenSource?: string;
  /**
   * Checks at preview that ask the server (node names, reachability):
   * skipped when offline (goPveQemu:offline, else GO_PVE_QEMU_OFFLINE), each
   * server call bounded by timeoutMs (goPveQemu:checkTimeoutMs).
   */
  serverChecks: { offline: boolean; timeoutMs: number };
  timing: Partial<Timing>;
  /** Stream liveness for every client: longest silence, longest operation, longest wait for an answer's headers. */
  stream: { idleTimeoutMs?: number; overallTimeoutMs?: number; headersTimeoutMs?: number };
  /** goPveQemu:allowHardStop (default true): a graceful shutdown that did not work may end in a hard stop. */
  allowHardStop: boolean;
  /** goPveQemu:downtimeBudgets (per downtime group) and goPveQemu:maxDownPerServer: how many VMs may be down at once. */
  downtime: DowntimeRules;
}

/** One setting by its key under `goPveQemu:`: the text, a number of milliseconds, a flag. */
interface Reader {
  text(key: string): string | undefined;
  millis(key: string): number | undefined;
  flag(key: string, envName: string | undefined, fallback?: boolean): boolean;
  count(key: string): number | undefined;
  counts(key: string): Record<string, number>;
}

const COUNT_RULE = "a whole number of VMs >= 1";

function readerOf(get: (key: string) => unknown, env: NodeJS.ProcessEnv, ns: string): Reader {
  const text = (key: string): string | undefined => {
    const v = get(`${ns}:${key}`);
    return typeof v === "string" && v.trim() !== "" ? v : undefined;
  };
  const millis = (key: string): number | undefined => {
    const raw = text(key);
    if (raw === undefined) return undefined;
    const parsed = Millis.safeParse(raw);
    if (!parsed.success)
      throw new Error(`config ${ns}:${key}: "${raw}" is not allowed; expected a whole number of milliseconds > 0`);
    return parsed.data;
  };
  const flag = (key: string, envName: string | undefined, fallback = false): boolean => {
    const raw = text(key) ?? (envName === undefined ? undefined : nonEmpty(env[envName]));
    if (raw === undefined) return fallback;
    const v = raw.trim().toLowerCase();
    if (["true", "1", "yes"].includes(v)) return true;
    if (["false", "0", "no"].includes(v)) return false;
    const where = envName === undefined ? `config ${ns}:${key}` : `config ${ns}:${key} (or ${envName})`;
    throw new Error(`${where}: "${raw}" is not allowed; expected true or false`);
  };
  const count = (key: string): number | undefined => {
    const raw = text(key);
    if (raw === undefined) return undefined;
    const n = wholeCount(raw);
    if (n === undefined) throw new Error(`config ${ns}:${key}: "${raw}" is not allowed; expected ${COUNT_RULE}`);
    return n;
  };
  const counts = (key: string): Record<string, number> => countsOf(text(key), ns, key);
  return { text, millis, flag, count, counts };
}

/** An object by group: `pulumi config set --path '<ns>:<key>.web' 3` stores one, which arrives as JSON text. */
function countsOf(raw: string | undefined, ns: string, key: string): Record<string, number> {
  if (raw === undefined) return {};
  const example = `e.g. {"web": 3}, or pulumi config set --path '${ns}:${key}.web' 3`;
  const refused = new Error(
    `config ${ns}:${key}: "${raw}" is not allowed; expected an object of group names to ${COUNT_RULE}, ${example}`,
  );
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw refused;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw refused;
  const out: Record<string, number> = {};
  // A key the Vms' downtimeGroup could not hold would cap no VM: judged by that input's own rule.
  for (const [group, v] of Object.entries(value)) {
    if (!VmInputsSchema.shape.downtimeGroup.safeParse(group).success) {
      throw new Error(
        `config ${ns}:${key}: "${group}" is not a downtime group name; use letters, digits and hyphens (not first or last), at most 63 characters, as in the Vms' downtimeGroup`,
      );
    }
    const n = wholeCount(v);
    if (n === undefined) {
      throw new Error(
        `config ${ns}:${key}: group "${group}" has ${JSON.stringify(v)}; expected ${COUNT_RULE}, ${example}`,
      );
    }
    out[group] = n;
  }
  return out;
}

/** A whole number >= 1, given as a number or as its digits (config text, a --path value); nothing else. */
function wholeCount(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/** Reads `goPveQemu:*` through `get` (a config lookup by full key) and the environment. */
export function readSettings(
  get: (key: string) => unknown,
  env: NodeJS.ProcessEnv,
  ns: string = DYNAMIC_NS,
): ProviderSettings {
  const r = readerOf(get, env, ns);
  const timing: Partial<Timing> = {};
  for (const key of TIMING_KEYS) {
    const v = r.millis(key);
    if (v !== undefined) timing[key] = v;
  }
  // Waiting for installs is the wait the bounds allow: as long as the follow itself may take.
  if (r.flag("waitForInstalls", undefined, false)) timing.settleWaitMs = Number.POSITIVE_INFINITY;
  return {
    ...connectionOf(r, env, ns),
    serverChecks: {
      offline: r.flag("offline", "GO_PVE_QEMU_OFFLINE"),
      timeoutMs: r.millis("checkTimeoutMs") ?? DEFAULT_CHECK_TIMEOUT_MS,
    },
    timing,
    stream: {
      idleTimeoutMs: r.millis("streamIdleTimeoutMs"),
      overallTimeoutMs: r.millis("streamOverallTimeoutMs"),
      headersTimeoutMs: r.millis("streamHeadersTimeoutMs"),
    },
    allowHardStop: r.flag("allowHardStop", undefined, true),
    downtime: downtimeOf(r),
  };
}

function downtimeOf(r: Reader): DowntimeRules {
  const perServer = r.count("maxDownPerServer");
  return { budgets: r.counts("downtimeBudgets"), ...(perServer !== undefined ? { perServer } : {}) };
}

/** The default connection: stack config, then the environment, and where each part came from. */
function connectionOf(
  r: Reader,
  env: NodeJS.ProcessEnv,
  ns: string,
): Pick<ProviderSettings, "connection" | "endpointSource" | "tokenSource"> {
  const endpoint = sourced(
    r.text("endpoint"),
    nonEmpty(env.GO_PVE_QEMU_ENDPOINT),
    `${ns}:endpoint`,
    "GO_PVE_QEMU_ENDPOINT",
  );
  const token = sourced(r.text("token"), nonEmpty(env.GO_PVE_QEMU_TOKEN), `${ns}:token`, "GO_PVE_QEMU_TOKEN");
  return {
    connection: { endpoint: endpoint.value, token: token.value },
    endpointSource: endpoint.source,
    tokenSource: token.source,
  };
}

function sourced(
  fromConfig: string | undefined,
  fromEnv: string | undefined,
  key: string,
  envName: string,
): { value?: string; source?: string } {
  if (fromConfig !== undefined) return { value: fromConfig, source: `stack config ${key}` };
  if (fromEnv !== undefined) return { value: fromEnv, source: `the environment variable ${envName}` };
  return {};
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v;
}
