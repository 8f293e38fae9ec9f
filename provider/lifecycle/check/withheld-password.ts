// `storePassword: false`: the checked inputs are what Pulumi keeps in state,
// so check takes the password out of them and puts a salted hash in its
// place. The password itself goes back to the provider process alone, which
// hands it to the create that follows in the same deployment; it is never
// written anywhere. A hash already in state is kept while the password still
// matches it, so that an unchanged password is no change (a fresh salt would
// make every preview a replace).
import { isUnknown, UNKNOWN, hashPassword, passwordMatches } from "../model";

type Inputs = Record<string, unknown>;

const PASSWORD_REQUIRED =
  "password: is required when storePassword is false: a generated password would have to be kept in state to be " +
  "shown, which storePassword: false rules out; give one (`pulumi config set --secret <key> ...`). A VM whose " +
  "password was generated keeps it: it is this resource's secret output `password` (`pulumi stack export --show-secrets`)";

/** A failure when the password cannot be kept out of state because there is none to give the server. */
export function withheldPasswordFailure(
  inputs: Inputs,
  failed: Set<string>,
): { property: string; reason: string } | undefined {
  if (inputs.storePassword !== false || failed.has("password") || failed.has("storePassword")) return undefined;
  if (inputs.password !== undefined || inputs.adopt === true) return undefined;
  return { property: "password", reason: PASSWORD_REQUIRED };
}

/**
 * A password that is a stack config value is in state anyway: Pulumi keeps a
 * dynamic provider's whole stack config there (encrypted, as the inputs of
 * its default provider). Promising otherwise would be false, so it is refused.
 */
export function withheldPasswordInConfig(
  inputs: Inputs,
  configKeyOf: ((value: string) => string | undefined) | undefined,
): { property: string; reason: string } | undefined {
  if (inputs.storePassword !== false || typeof inputs.password !== "string" || isUnknown(inputs.password)) return;
  const key = configKeyOf?.(inputs.password);
  if (key === undefined) return undefined;
  return {
    property: "password",
    reason:
      `password: comes from stack config ${key}, and Pulumi keeps the whole stack config of a dynamic provider in ` +
      "state (encrypted, as the inputs of its default provider), so storePassword: false cannot keep it out; give the " +
      "password from outside the stack config (a file, an environment variable, a secret manager) and remove it " +
      "from the config, or leave storePassword at true",
  };
}

/**
 * Takes the password out of `inputs` (in place) when it is not to be stored,
 * putting its hash there instead, and returns it. The old inputs' hash is
 * reused while the password matches it.
 */
export function withholdPassword(olds: unknown, inputs: Inputs): string | undefined {
  if (inputs.storePassword !== false || inputs.password === undefined) return undefined;
  const password = inputs.password;
  delete inputs.password;
  if (isUnknown(password)) {
    inputs.passwordHash = UNKNOWN;
    return undefined;
  }
  if (typeof password !== "string") return undefined;
  const oldHash = olds !== null && typeof olds === "object" ? (olds as Inputs).passwordHash : undefined;
  inputs.passwordHash =
    typeof oldHash === "string" && passwordMatches(password, oldHash) ? oldHash : hashPassword(password);
  return password;
}
