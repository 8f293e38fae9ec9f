// The engine's property bags carry keys of the engine's and the glue's own
// beside a VM's properties: the serialized provider, the resource's URN, the
// stack's identity. The lifecycle must never see them, and the engine must
// get them back on every answer, so taking them off and putting them back
// happens in one place, with the rules for what the engine accepts as
// outputs.
import type { VmState } from "../lifecycle";

/** A property bag as the engine passes it and takes it back. */
export type Bag = Record<string, unknown>;

/** Keys the engine and the glue add to every property bag; never the lifecycle's business. */
const PROVIDER_KEY = "__provider";
const URN_KEY = "__urn";
/** The stack's identity (the StackIdentity resource's value), an input of every Vm: the lifecycle gets it in its context. */
const IDENTITY_KEY = "__stackIdentity";

/** A bag taken apart: the VM's properties, and what the engine and the glue keep beside them. */
export function split(bag: Bag | undefined): { props: Bag; urn: string; provider: unknown; identity?: string } {
  const { [PROVIDER_KEY]: provider, [URN_KEY]: urn, [IDENTITY_KEY]: identity, ...props } = bag ?? {};
  return {
    props,
    urn: typeof urn === "string" ? urn : "",
    provider,
    ...(typeof identity === "string" && identity !== "" ? { identity } : {}),
  };
}

/**
 * Adds back the keys the engine needs to find this provider and resource
 * again. The host turns the result into a protobuf Struct, which refuses
 * undefined anywhere; a JSON round trip drops such keys (a refusal there
 * would lose a VM that was just made).
 */
export function withKeys(state: object, from: Bag | undefined): Bag {
  const out: Bag = JSON.parse(JSON.stringify(state)) as Bag;
  if (from?.[PROVIDER_KEY] !== undefined) out[PROVIDER_KEY] = from[PROVIDER_KEY];
  if (from?.[URN_KEY] !== undefined) out[URN_KEY] = from[URN_KEY];
  return out;
}

/**
 * A VM's state as the engine's outputs. The SDK fills an output the provider
 * does not return with the input of the same name: a password state keeps
 * only the hash of (storePassword false) is returned as null, so that the
 * Vm's `password` output is not the password, and no program exports it into
 * state by accident.
 */
export function outputsOf(state: VmState, from: Bag | undefined): Bag {
  const out = withKeys(state, from);
  if (state.passwordHash !== undefined && state.password === undefined) out.password = null;
  return out;
}

/** The inputs check hands back: the engine's keys, and the stack's identity, kept as given. */
export function withInputKeys(inputs: object, from: Bag | undefined): Bag {
  const out = withKeys(inputs, from);
  if (from?.[IDENTITY_KEY] !== undefined) out[IDENTITY_KEY] = from[IDENTITY_KEY];
  return out;
}
