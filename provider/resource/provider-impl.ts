// The dynamic provider's implementation, at the module path the serialized
// provider in every stack's state loads at run time: through the package's
// "./provider-impl" export, else by the absolute path recorded in state.
// It makes this process's provider core, the one object that holds the
// provider's state, when Pulumi's dynamic provider host first loads it; the
// serialized text calls `attach`. Texts written by earlier releases call
// other exports by name (earlier-releases.ts), so this path and those names
// stay. It also fixes what loads first, before anything heavy.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "../compile-cache";
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, dynamicVmMethods } from "../calls";
import * as core from "../core";
import { ENGINE_UNKNOWN, engineLogTransport } from "../engine";
import { earlierReleaseExports } from "./earlier-releases";
import { identityMethods } from "./identity-impl";

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
  if ((provider as { resource?: unknown }).resource === "StackIdentity") Object.assign(provider, identityMethods);
  else Object.assign(provider, vm);
  configureDynamic(processCore, req);
}

export const { configure, check, diff, create, read, update, remove } = earlierReleaseExports(processCore, vm);
