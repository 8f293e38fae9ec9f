// The dynamic provider's implementation, at the module path the serialized
// provider in every stack's state loads at run time: through the package's
// "./provider-impl" export, else by the absolute path recorded in state.
// Texts written by earlier releases call its exports by name (attach;
// configure, check, diff, create, read, update, remove), so this path and
// those names stay as they are while the work lives in the modules it
// imports. It also fixes what loads first, before anything heavy.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "../compile-cache";
import type * as pulumi from "@pulumi/pulumi";
import { check, configure, create, diff, read, remove, update } from "../calls";
import { identityMethods } from "./identity-impl";

export { check, configure, create, diff, read, remove, update };

/**
 * What the serialized provider's text calls once the implementation is
 * loaded: the provider object gets this module's methods, then the
 * configuration is applied. The methods go on first, so a bad setting still
 * reaches every call (each fails with it).
 */
export async function attach(
  provider: pulumi.dynamic.ResourceProvider,
  req: pulumi.dynamic.ConfigureRequest,
): Promise<void> {
  // The StackIdentity resource's text is the same function with a name beside it.
  if ((provider as { resource?: unknown }).resource === "StackIdentity") Object.assign(provider, identityMethods);
  else Object.assign(provider, { check, diff, create, read, update, delete: remove });
  return configure(req);
}
