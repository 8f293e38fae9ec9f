// The resource plugin's configuration: `pulumi config set gopveqemu:endpoint`,
// a secret `gopveqemu:token`, or an explicit provider's arguments
// (`new gopveqemu.Provider("b", { endpoint })`), one provider process each.
// The keys are the dynamic door's `goPveQemu:*` keys under the package's name.
//
// The provider's inputs also carry the stack's identity on this door: a
// generated SDK cannot declare a hidden resource for the user as the dynamic
// door's Vm does (StackIdentity), so CheckConfig makes the identity once and
// keeps it from the provider's old inputs ever after. The engine records a
// provider's inputs in state before any resource of it is created, so the
// identity survives a killed deployment, and two backends with the same
// project and stack names still get two identities.
import { newIdentity, type Bag, type ProviderCore } from "../core";
import { secret, unwrapSecrets } from "./wire-bags";

/** The package's name: its config namespace, type tokens and plugin name. */
export const PACKAGE = "gopveqemu";
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
