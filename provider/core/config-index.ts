// With storePassword false a password must stay out of state, yet the engine
// keeps the whole stack config in state, as the default provider's inputs: a
// password taken from stack config is there anyway. Check refuses such a
// password and names the key that holds it, which only a lookup by value
// among every value of the stack config can find; this builds that lookup
// from what the engine hands the dynamic provider's `configure` (its Config).

/**
 * Every string in the stack config, to the key that holds it. The SDK's
 * Config offers `get` by key only; its key-value record (`rawConfig`) is read
 * where present. Without it, nothing is found and nothing else changes.
 */
export function configIndex(config: object): Map<string, string> {
  const raw = (config as { rawConfig?: unknown }).rawConfig;
  const index = new Map<string, string>();
  const visit = (key: string, v: unknown): void => {
    if (typeof v === "string") {
      index.set(v, key);
      // structured config arrives as its JSON text
      if (/^[[{]/.test(v)) {
        try {
          visit(key, JSON.parse(v));
        } catch {
          // plain text after all
        }
      }
    } else if (v !== null && typeof v === "object") {
      for (const inner of Object.values(v)) visit(key, inner);
    }
  };
  if (raw !== null && typeof raw === "object") for (const [key, v] of Object.entries(raw)) visit(key, v);
  return index;
}
