// The resource plugin's configuration: `pulumi config set gopveqemu:endpoint`,
// a secret `gopveqemu:token`, or an explicit provider's arguments, one
// provider process each; the keys are the dynamic provider's `goPveQemu:*`.
// The provider's inputs also carry the stack's identity: a generated SDK
// cannot declare a hidden resource as the dynamic provider's Vm does, so
// CheckConfig makes it once and keeps it from the old inputs ever after (the
// engine records a provider's inputs before any of its resources is made, so
// it survives a killed deployment; two backends' same-named stacks differ).
import { newIdentity, type Bag, type ProviderCore } from "../core";
import { secret, unwrapSecrets } from "./wire-bags";
import { PACKAGE } from "../tokens";

/** The provider input that holds the stack's identity. */
const IDENTITY_INPUT = "stackIdentity";

/** CheckConfig: the new inputs, with the identity the old ones had (or a new one, the first time). */
export function checkConfig(olds: Bag, news: Bag): Bag {
  const kept = identityIn(olds) ?? identityIn(news) ?? newIdentity();
  return { ...news, [IDENTITY_INPUT]: secret(kept) };
}

/** DiffConfig: what changed, the identity aside (it never changes); a provider is never replaced. */
export function diffConfig(olds: Bag, news: Bag): string[] {
  const o = unwrapSecrets(olds) as Bag;
  const n = unwrapSecrets(news) as Bag;
  const keys = new Set([...Object.keys(o), ...Object.keys(n)]);
  keys.delete(IDENTITY_INPUT);
  return [...keys].filter((k) => JSON.stringify(o[k]) !== JSON.stringify(n[k])).sort();
}

/** Configure: the settings every call of this process runs with, and the identity new Vms are made under. */
export function configure(core: ProviderCore, args: Bag): void {
  const plain = unwrapSecrets(args) as Bag;
  core.providerIdentity = identityIn(plain);
  // No lookup of config keys by value: the dynamic provider needs one to refuse a
  // withheld password taken from stack config (its provider keeps the whole
  // stack config in state); this provider's inputs hold its own keys only.
  core.configure((key) => textOf(plain[key.slice(PACKAGE.length + 1)]), new Map(), PACKAGE);
}

function identityIn(bag: Bag | undefined): string | undefined {
  const v = unwrapSecrets(bag?.[IDENTITY_INPUT]);
  return typeof v === "string" && /^[0-9a-f]{32}$/.test(v) ? v : undefined;
}

/** Config values arrive as strings, or typed by the schema (a number, a flag): the settings read text. */
function textOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v);
}
