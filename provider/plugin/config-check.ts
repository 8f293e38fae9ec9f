// CheckConfig's failures: each bad provider setting named with what is
// allowed, at preview, before any resource is checked.
import type { Bag } from "../calls";
import { readSettings } from "../settings";
import { PACKAGE, IDENTITY_INPUT } from "./provider-config";
import { unwrapSecrets } from "./wire";

export function configProblems(news: Bag): { property: string; reason: string }[] {
  const plain = unwrapSecrets(news) as Bag;
  const problems: { property: string; reason: string }[] = [];
  // Every bad value at once: each key is read on its own.
  for (const [key, v] of Object.entries(plain)) {
    if (key === IDENTITY_INPUT || v === undefined || v === null) continue;
    try {
      readSettings(
        (k) => (k === `${PACKAGE}:${key}` ? (typeof v === "string" ? v : JSON.stringify(v)) : undefined),
        {},
        PACKAGE,
      );
    } catch (err) {
      problems.push({ property: key, reason: (err as Error).message });
    }
  }
  return problems;
}
