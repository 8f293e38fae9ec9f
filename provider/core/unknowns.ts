// The engine's marker for a value that is not known yet (at preview) is the
// engine's business; the lifecycle has its own (lifecycle.UNKNOWN) and knows
// nothing of the engine's. The core is given the engine's marker by the way
// in that makes it, and translates on the way in (check, diff) and back out
// (the inputs check returns).
import { UNKNOWN } from "../lifecycle";

/** Translations between the engine's unknowns and the lifecycle's. */
export interface Unknowns {
  fromEngine<T>(value: T): T;
  toEngine<T>(value: T): T;
}

export function unknownsOf(engineMarker: string): Unknowns {
  return {
    fromEngine: <T>(value: T) => swap(value, engineMarker, UNKNOWN) as T,
    toEngine: <T>(value: T) => swap(value, UNKNOWN, engineMarker) as T,
  };
}

function swap(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => swap(v, from, to));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v, from, to)]));
  }
  return value;
}
