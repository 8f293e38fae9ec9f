// Pulumi's marker for a value that is not known yet (at preview) is Pulumi's
// business. The lifecycle has its own marker (lifecycle.UNKNOWN) and knows
// nothing of Pulumi's; the glue translates on the way in (check, diff) and
// back out (the inputs check returns to the engine).
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { UNKNOWN } from "../lifecycle";

/** Pulumi's unknowns as the lifecycle's. */
export function fromEngine<T>(value: T): T {
  return swap(value, unknownValue, UNKNOWN) as T;
}

/** The lifecycle's unknowns as Pulumi's. */
export function toEngine<T>(value: T): T {
  return swap(value, UNKNOWN, unknownValue) as T;
}

function swap(value: unknown, from: string, to: string): unknown {
  if (value === from) return to;
  if (Array.isArray(value)) return value.map((v) => swap(v, from, to));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v, from, to)]));
  }
  return value;
}
