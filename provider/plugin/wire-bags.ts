// The plugin's wire values: a secret is an object with Pulumi's signature
// key (the dynamic provider's host unwraps them before any call). Taken to
// the core's plain bags (secrets off, the stack's identity apart), and the
// answers' secrets marked again, so the engine keeps them encrypted.
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import type { Bag } from "../core";
import { IDENTITY_KEY, PROVIDER_KEY, SECRET_INPUTS, SECRET_OUTPUTS, URN_KEY, carriesCredentials } from "../engine";

/**
 * Always secrets, whatever the program passed: the ones the dynamic
 * provider's Vm marks, and among the inputs the stack's identity (the key of
 * the marks, a secret output of the dynamic provider's StackIdentity).
 */
const SECRET = {
  outputs: new Set(SECRET_OUTPUTS),
  inputs: new Set([...SECRET_INPUTS, IDENTITY_KEY]),
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

/**
 * A plugin bag as the core takes it: secrets off, and the stack's identity
 * a VM's inputs keep taken apart. A state written through the dynamic
 * provider (a VM moved between the two ways in) also holds its URN and
 * serialized text: those go too.
 */
export function toCore(bag: Bag | undefined): { props: Bag; identity?: string } {
  const plainBag = (unwrapSecrets(bag ?? {}) ?? {}) as Bag;
  const { [IDENTITY_KEY]: identity, [URN_KEY]: _urn, [PROVIDER_KEY]: _provider, ...props } = plainBag;
  return typeof identity === "string" && identity !== "" ? { props, identity } : { props };
}

/** The core's answer as the plugin's wire carries it: secrets marked again, the fixed ones and every key the request marked. */
export function fromCore(bag: Bag | undefined, request: Bag | undefined, kind: keyof typeof SECRET): Bag {
  const marked = secretKeysOf(request);
  const fixed = SECRET[kind];
  const out: Bag = {};
  for (const [k, v] of Object.entries(bag ?? {})) {
    if (v === undefined) continue;
    // A null password (storePassword false) is marked too, as the dynamic provider's additionalSecretOutputs marks it.
    out[k] = fixed.has(k) || marked.has(k) || (k === "connection" && carriesCredentials(v)) ? secret(v) : v;
  }
  return out;
}
