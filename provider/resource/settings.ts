// Provider-wide settings: stack config under the `goPveQemu:` namespace, then
// the environment. The engine hands the dynamic provider every config value
// in `configure`; numbers arrive as strings, so they are coerced and checked
// here with a message that names the key.
import { z } from "zod";
import type { ConnectionDefaults, Timing } from "../lifecycle";

const NS = "goPveQemu";
const Millis = z.coerce.number().int().positive();
/** A preview waits at most this long for the server before it warns and goes on. */
const DEFAULT_CHECK_TIMEOUT_MS = 5_000;

/** Timing keys of the lifecycle that stack config may override, in milliseconds. */
const TIMING_KEYS = [
  "pollIntervalMs",
  "shutdownTimeoutMs",
  "stopTimeoutMs",
  "followTimeoutMs",
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
  /**
   * Checks at preview that ask the server (node names, reachability):
   * skipped when offline (goPveQemu:offline, else GO_PVE_QEMU_OFFLINE), each
   * server call bounded by timeoutMs (goPveQemu:checkTimeoutMs).
   */
  serverChecks: { offline: boolean; timeoutMs: number };
  timing: Partial<Timing>;
  /** Stream liveness for every client: longest silence, longest operation. */
  stream: { idleTimeoutMs?: number; overallTimeoutMs?: number };
}

/** Reads `goPveQemu:*` through `get` (a config lookup by full key) and the environment. */
export function readSettings(get: (key: string) => unknown, env: NodeJS.ProcessEnv): ProviderSettings {
  const text = (key: string): string | undefined => {
    const v = get(`${NS}:${key}`);
    return typeof v === "string" && v.trim() !== "" ? v : undefined;
  };
  const millis = (key: string): number | undefined => {
    const raw = text(key);
    if (raw === undefined) return undefined;
    const parsed = Millis.safeParse(raw);
    if (!parsed.success)
      throw new Error(`config ${NS}:${key}: "${raw}" is not allowed; expected a whole number of milliseconds > 0`);
    return parsed.data;
  };
  const timing: Partial<Timing> = {};
  for (const key of TIMING_KEYS) {
    const v = millis(key);
    if (v !== undefined) timing[key] = v;
  }
  const flag = (key: string, envName: string): boolean => {
    const raw = text(key) ?? nonEmpty(env[envName]);
    if (raw === undefined) return false;
    const v = raw.trim().toLowerCase();
    if (["true", "1", "yes"].includes(v)) return true;
    if (["false", "0", "no"].includes(v)) return false;
    throw new Error(`config ${NS}:${key} (or ${envName}): "${raw}" is not allowed; expected true or false`);
  };
  const configEndpoint = text("endpoint");
  const envEndpoint = nonEmpty(env.GO_PVE_QEMU_ENDPOINT);
  return {
    connection: {
      endpoint: configEndpoint ?? envEndpoint,
      token: text("token") ?? nonEmpty(env.GO_PVE_QEMU_TOKEN),
    },
    endpointSource:
      configEndpoint !== undefined
        ? `stack config ${NS}:endpoint`
        : envEndpoint !== undefined
          ? "the environment variable GO_PVE_QEMU_ENDPOINT"
          : undefined,
    serverChecks: {
      offline: flag("offline", "GO_PVE_QEMU_OFFLINE"),
      timeoutMs: millis("checkTimeoutMs") ?? DEFAULT_CHECK_TIMEOUT_MS,
    },
    timing,
    stream: { idleTimeoutMs: millis("streamIdleTimeoutMs"), overallTimeoutMs: millis("streamOverallTimeoutMs") },
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v;
}
