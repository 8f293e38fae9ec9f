// CheckConfig's failures: each bad provider setting named with what is
// allowed, at preview, before any resource is checked. A value is judged by
// the same reading the provider runs with (readSettings), a key by the
// provider's inputs in the package schema.
import type { Bag } from "../core";
import { ProviderInputsSchema, readSettings } from "../settings";
import { PACKAGE } from "./provider-config";
import { unwrapSecrets } from "./wire-bags";

const KEYS = Object.keys(ProviderInputsSchema.shape);
/** Keys the engine itself adds to a provider's inputs (the plugin's version, its download URL). */
const ENGINE_KEY = /^(version|pluginDownloadURL)$/;

export function configProblems(news: Bag): { property: string; reason: string }[] {
  const plain = unwrapSecrets(news) as Bag;
  const problems: { property: string; reason: string }[] = [];
  // Every bad value at once: each key is read on its own.
  for (const [key, v] of Object.entries(plain)) {
    if (v === undefined || v === null || ENGINE_KEY.test(key)) continue;
    if (!KEYS.includes(key)) {
      problems.push({
        property: key,
        reason: `${PACKAGE}:${key} is not a setting of this provider; allowed ${KEYS.filter((k) => k !== "stackIdentity").join(", ")}`,
      });
      continue;
    }
    const text = typeof v === "string" ? v : JSON.stringify(v);
    try {
      readSettings((k) => (k === `${PACKAGE}:${key}` ? text : undefined), {}, PACKAGE);
    } catch (err) {
      problems.push({ property: key, reason: (err as Error).message });
    }
  }
  return problems;
}
