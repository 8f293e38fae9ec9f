// The dynamic provider's implementation, at the module path every stored
// text loads (the package's "./provider-impl" export). It makes this
// process's provider core at the dynamic provider host's first call;
// the stored text calls `attach`, earlier releases' texts call the exports
// of earlier-releases.ts. It also fixes what loads first.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "../compile-cache";
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, dynamicVmMethods, type ProcessProvider } from "./vm-methods";
import * as core from "../core";
import { ENGINE_UNKNOWN, engineLogTransport } from "../engine";
import { earlierReleaseExports } from "./earlier-releases";
import { identityMethods } from "./identity-methods";
import { STACK_IDENTITY } from "../tokens";

// The one process-wide slot in provider/, on purpose: the dynamic provider host loads this module once
// per process and gives it nothing else to keep state in, while every install of the process must
// coordinate through one core (VMID gates, name holds). Made at the host's first call, not at import.
// eslint-disable-next-line no-restricted-syntax -- this process's one provider core (see above)
let made: ProcessProvider | undefined;

function processProvider(): ProcessProvider {
  if (made === undefined) {
    const c = core.configure({
      env: process.env,
      engineUnknown: ENGINE_UNKNOWN,
      log: () => engineLogTransport(process.argv),
      cancel: core.dynamicHostCancelWatch(),
    });
    made = { core: c, vm: dynamicVmMethods(c) };
  }
  return made;
}

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
  const p = processProvider();
  // The StackIdentity resource's text is the same function with a name beside it.
  if ((provider as { resource?: unknown }).resource === STACK_IDENTITY) Object.assign(provider, identityMethods);
  else Object.assign(provider, p.vm);
  configureDynamic(p.core, req);
}

export const { configure, check, diff, create, read, update, remove } = earlierReleaseExports(processProvider);
