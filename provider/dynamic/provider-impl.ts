// The dynamic provider's implementation, at the module path every stored
// text loads (the package's "./provider-impl" export). It makes this
// process's provider core when the dynamic provider host first loads it;
// the stored text calls `attach`, earlier releases' texts call the exports
// of earlier-releases.ts. It also fixes what loads first.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "../compile-cache";
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, dynamicVmMethods } from "./vm-methods";
import * as core from "../core";
import { ENGINE_UNKNOWN, engineLogTransport } from "../engine";
import { earlierReleaseExports } from "./earlier-releases";
import { identityMethods } from "./identity-methods";
import { STACK_IDENTITY } from "../tokens";

/** This process's provider core (the host loads this module once per process). */
const processCore = core.configure({
  env: process.env,
  engineUnknown: ENGINE_UNKNOWN,
  log: () => engineLogTransport(process.argv),
  cancel: core.dynamicHostCancelWatch(),
});
const vm = dynamicVmMethods(processCore);

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
  if ((provider as { resource?: unknown }).resource === STACK_IDENTITY) Object.assign(provider, identityMethods);
  else Object.assign(provider, vm);
  configureDynamic(processCore, req);
}

export const { configure, check, diff, create, read, update, remove } = earlierReleaseExports(processCore, vm);
