// Provider-wide settings: stack config under the `goPveQemu:` namespace, then
// the environment. The engine hands the dynamic provider every config value
// in `configure`, numbers as strings, so they are coerced and checked here,
// once, with a message that names the key, before any operation relies on
// them.
import type { ConnectionDefaults, DowntimeRules, Timing } from "../lifecycle";
import { SETTING_KEYS, declared } from "./declared";
import type { SETTINGS } from "./declared";
import type { SettingKey } from "./declared";
import { PARSE } from "./kinds";
import type { KindValue } from "./kinds";
import { DYNAMIC_MODULE } from "../tokens";

/** The dynamic provider's config namespace; the resource plugin reads the same keys under its package name. */
export const DYNAMIC_NS = DYNAMIC_MODULE;

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
] as const satisfies readonly (keyof Timing & SettingKey)[];

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

/** What a setting's kind reads as. */
type ValueOf<K extends SettingKey> = KindValue[(typeof SETTINGS)[K]["kind"]];
/** The settings stack config or the environment gave, each parsed; absent: neither gave it. */
type Given = { [K in SettingKey]?: ValueOf<K> };

/** Each setting from stack config, else its environment variable, and where it came from, for messages. */
function readGiven(
  get: (key: string) => unknown,
  env: NodeJS.ProcessEnv,
  ns: string,
): { given: Given; source: Partial<Record<SettingKey, string>> } {
  const given: Record<string, unknown> = {};
  const source: Partial<Record<SettingKey, string>> = {};
  for (const key of READ_ORDER) {
    const s = declared(key);
    const fromConfig = nonEmpty(get(`${ns}:${key}`));
    const fromEnv = s.env === undefined ? undefined : nonEmpty(env[s.env]);
    const raw = fromConfig ?? fromEnv;
    if (raw === undefined) continue;
    const where = s.env === undefined ? `config ${ns}:${key}` : `config ${ns}:${key} (or ${s.env})`;
    given[key] = PARSE[s.kind](raw, where, ns, key);
    source[key] = fromConfig !== undefined ? `stack config ${ns}:${key}` : `the environment variable ${s.env}`;
  }
  return { given: given as Given, source };
}

/** The timings first, then the others, as the reader has always read them: the first bad one is the one named. */
const READ_ORDER = [...TIMING_KEYS, ...SETTING_KEYS.filter((k) => !(TIMING_KEYS as readonly string[]).includes(k))];

/** A setting's value: the one given, else its declared default. */
function valueOf<K extends SettingKey>(given: Given, key: K): ValueOf<K> {
  return (given[key] ?? declared(key).default) as ValueOf<K>;
}

/** Reads `goPveQemu:*` through `get` (a config lookup by full key) and the environment. */
export function readSettings(
  get: (key: string) => unknown,
  env: NodeJS.ProcessEnv,
  ns: string = DYNAMIC_NS,
): ProviderSettings {
  const { given, source } = readGiven(get, env, ns);
  // Only what is given: the lifecycle applies its own defaults (DEFAULT_TIMING, which the declaration takes).
  const timing: Partial<Timing> = {};
  for (const key of TIMING_KEYS) if (given[key] !== undefined) timing[key] = given[key];
  // Waiting for installs is the wait the bounds allow: as long as the follow itself may take.
  if (valueOf(given, "waitForInstalls")) timing.settleWaitMs = Number.POSITIVE_INFINITY;
  return {
    connection: { endpoint: given.endpoint, token: given.token },
    endpointSource: source.endpoint,
    tokenSource: source.token,
    serverChecks: { offline: valueOf(given, "offline"), timeoutMs: valueOf(given, "checkTimeoutMs") },
    timing,
    // Likewise the client's (DEFAULT_STREAM_TIMEOUTS).
    stream: {
      idleTimeoutMs: given.streamIdleTimeoutMs,
      overallTimeoutMs: given.streamOverallTimeoutMs,
      headersTimeoutMs: given.streamHeadersTimeoutMs,
    },
    allowHardStop: valueOf(given, "allowHardStop"),
    downtime: {
      budgets: valueOf(given, "downtimeBudgets"),
      ...(given.maxDownPerServer !== undefined ? { perServer: given.maxDownPerServer } : {}),
    },
  };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}
