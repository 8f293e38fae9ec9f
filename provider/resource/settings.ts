// Provider-wide settings: stack config under the `goPveQemu:` namespace, then
// the environment. The engine hands the dynamic provider every config value
// in `configure`; numbers arrive as strings, so they are coerced and checked
// here with a message that names the key.
import { z } from "zod";
import type { ConnectionDefaults, Timing } from "../lifecycle";

const NS = "goPveQemu";
const Millis = z.coerce.number().int().positive();

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
  "confirmTimeoutMs",
  "goneTimeoutMs",
] as const satisfies readonly (keyof Timing)[];

export interface ProviderSettings {
  connection: ConnectionDefaults;
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
  return {
    connection: {
      endpoint: text("endpoint") ?? nonEmpty(env.GO_PVE_QEMU_ENDPOINT),
      token: text("token") ?? nonEmpty(env.GO_PVE_QEMU_TOKEN),
    },
    timing,
    stream: { idleTimeoutMs: millis("streamIdleTimeoutMs"), overallTimeoutMs: millis("streamOverallTimeoutMs") },
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === "" ? undefined : v;
}
