// A provider's bad settings, each named with what is allowed, for the
// resource plugin's CheckConfig (at preview, before any resource is
// checked). A value is judged by the same reading the provider runs with
// (readSettings), a key by the provider's inputs in the package schema.
import { ProviderInputsSchema } from "./config-schema";
import { readSettings } from "./settings";

const KEYS = Object.keys(ProviderInputsSchema.shape);
/** Keys the engine itself adds to a provider's inputs (the plugin's version, its download URL). */
const ENGINE_KEY = /^(version|pluginDownloadURL)$/;

/** `settings`: the provider's inputs, plain (no secret wrappers); `namespace`: the config keys' prefix. */
export function settingProblems(
  settings: Record<string, unknown>,
  namespace: string,
): { property: string; reason: string }[] {
  const problems: { property: string; reason: string }[] = [];
  // Every bad value at once: each key is read on its own.
  for (const [key, v] of Object.entries(settings)) {
    if (v === undefined || v === null || ENGINE_KEY.test(key)) continue;
    if (!KEYS.includes(key)) {
      problems.push({
        property: key,
        reason: `${namespace}:${key} is not a setting of this provider; allowed ${KEYS.filter((k) => k !== "stackIdentity").join(", ")}`,
      });
      continue;
    }
    const text = typeof v === "string" ? v : JSON.stringify(v);
    try {
      readSettings((k) => (k === `${namespace}:${key}` ? text : undefined), {}, namespace);
    } catch (err) {
      problems.push({ property: key, reason: (err as Error).message });
    }
  }
  return problems;
}
