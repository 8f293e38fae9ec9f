// What crosses the resource plugin's wire and the dynamic provider's does
// not: Pulumi's plugin server hands a provider the engine's property values
// as they are, so a secret is an object with Pulumi's signature key and an
// unknown is Pulumi's marker string, where the dynamic provider's host has
// unwrapped secrets before any call. This turns the plugin's values into the
// bags the shared engine calls take (secrets unwrapped, the URN and the
// stack's identity under the keys the dynamic door uses) and marks the
// answers' secrets again, so the engine keeps them encrypted in state.
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import type { Bag } from "../calls";

/** The keys the shared calls use beside a VM's properties, which the plugin's wire never carries. */
const URN_KEY = "__urn";
const IDENTITY_KEY = "__stackIdentity";
const PROVIDER_KEY = "__provider";

/**
 * Always secrets, whatever the program passed: the ones the dynamic door
 * marks. Outputs: the Vm class's additionalSecretOutputs. Inputs: the
 * password the Vm class wraps, and the stack's identity (the key of the
 * marks, a secret output of the dynamic door's StackIdentity); a salted
 * password hash is no secret among the inputs there, nor here.
 */
const SECRET = {
  outputs: new Set(["password", "passwordHash", "connection"]),
  inputs: new Set(["password", IDENTITY_KEY]),
};

function isSecret(v: unknown): v is { value: unknown } {
  return v !== null && typeof v === "object" && (v as Bag)[specialSigKey] === specialSecretSig;
}

/** A value with Pulumi's secrets taken off, all the way down. */
export function unwrapSecrets(v: unknown): unknown {
  if (isSecret(v)) return unwrapSecrets(v.value);
  if (Array.isArray(v)) return v.map(unwrapSecrets);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, unwrapSecrets(inner)]));
  }
  return v;
}

/** A value as a secret on the wire. */
export function secret(v: unknown): Bag {
  return { [specialSigKey]: specialSecretSig, value: v };
}

/** The top-level keys of a bag whose value is, or holds, a secret. */
function secretKeysOf(bag: Bag | undefined): Set<string> {
  const keys = new Set<string>();
  const holds = (v: unknown): boolean =>
    isSecret(v) || (v !== null && typeof v === "object" && Object.values(v as Bag).some(holds));
  for (const [k, v] of Object.entries(bag ?? {})) if (holds(v)) keys.add(k);
  return keys;
}

/** A plugin bag as the shared calls take it: secrets off, the URN and (for inputs) the stack's identity added. */
export function toCalls(bag: Bag | undefined, urn: string, identity?: string): Bag {
  const out = (unwrapSecrets(bag ?? {}) ?? {}) as Bag;
  out[URN_KEY] = urn;
  if (identity !== undefined && typeof out[IDENTITY_KEY] !== "string") out[IDENTITY_KEY] = identity;
  return out;
}

/**
 * A shared call's answer as the plugin's wire carries it: the URN and a
 * dynamic provider's serialized text (in a state written through the dynamic
 * door) left out, secrets marked again: the fixed ones, and every key the
 * request marked.
 */
export function fromCalls(bag: Bag | undefined, request: Bag | undefined, kind: keyof typeof SECRET): Bag {
  const marked = secretKeysOf(request);
  const fixed = SECRET[kind];
  const out: Bag = {};
  for (const [k, v] of Object.entries(bag ?? {})) {
    if (k === URN_KEY || k === PROVIDER_KEY || v === undefined) continue;
    // A null password (storePassword false) is marked too, as the dynamic door's additionalSecretOutputs marks it.
    out[k] = fixed.has(k) || marked.has(k) || (k === "connection" && carriesCredentials(v)) ? secret(v) : v;
  }
  return out;
}

/** A connection with a token or headers is a secret as a whole (the Vm class marks it so on the dynamic door). */
function carriesCredentials(v: unknown): boolean {
  return v !== null && typeof v === "object" && ((v as Bag).token !== undefined || (v as Bag).headers !== undefined);
}
