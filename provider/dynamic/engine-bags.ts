// The dynamic provider's property bags carry keys of the engine's and of
// this way in beside a VM's properties: the serialized provider, the
// resource's URN, the stack's identity. The core must never see them, and
// the engine must get them back on every answer, so taking them off and
// putting them back happens here.
import type { Bag } from "../core";
import { IDENTITY_KEY, PROVIDER_KEY, URN_KEY } from "../engine";

export type { Bag } from "../core";

/** A bag taken apart: the VM's properties, and the URN and identity kept beside them. */
export function split(bag: Bag | undefined): { props: Bag; urn: string; identity?: string } {
  const { [PROVIDER_KEY]: _provider, [URN_KEY]: urn, [IDENTITY_KEY]: identity, ...props } = bag ?? {};
  return {
    props,
    urn: typeof urn === "string" ? urn : "",
    ...(typeof identity === "string" && identity !== "" ? { identity } : {}),
  };
}

/** Adds back the keys the engine needs to find this provider and resource again. */
export function withKeys(out: Bag, from: Bag | undefined): Bag {
  const bag = { ...out };
  if (from?.[PROVIDER_KEY] !== undefined) bag[PROVIDER_KEY] = from[PROVIDER_KEY];
  if (from?.[URN_KEY] !== undefined) bag[URN_KEY] = from[URN_KEY];
  return bag;
}

/** The inputs check hands back: the engine's keys, and the stack's identity, kept as given. */
export function withInputKeys(inputs: Bag, from: Bag | undefined): Bag {
  const out = withKeys(inputs, from);
  if (from?.[IDENTITY_KEY] !== undefined) out[IDENTITY_KEY] = from[IDENTITY_KEY];
  return out;
}
