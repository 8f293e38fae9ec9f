// The resource plugin: the Vm and the functions served over Pulumi's
// provider protocol by the Node.js SDK's plugin server, for programs in every
// Pulumi language. Thin like the dynamic provider: the calls are the core's.
import * as fs from "node:fs";
import * as path from "node:path";
import { main, type Provider } from "@pulumi/pulumi/provider";
import * as core from "../core";
import { ENGINE_UNKNOWN, engineLogTransport, patchAddService } from "../engine";
import { bakedDownloadUrl, packageSchema } from "../package-schema";
import { withConfigCalls } from "./config-rpc";
import { vmMethods as vmProviderMethods } from "./vm-provider";
import { VM_TOKEN } from "../tokens";

const VM_TYPE = VM_TOKEN;

/** The package's folder: package.json beside dist/ (or beside provider/ when run from source). */
function packageRoot(dir = __dirname): string {
  if (fs.existsSync(path.join(dir, "package.json"))) return dir;
  if (path.dirname(dir) === dir) throw new Error(`no package.json above ${__dirname}`);
  return packageRoot(path.dirname(dir));
}

/** Only a Vm is a resource of this provider: any other type is the engine's mistake, said as such. */
function forVm<A extends unknown[], R>(f: (...args: A) => Promise<R>, urnAt: number) {
  return (...args: A): Promise<R> => {
    const urn = String(args[urnAt]);
    const type = urn.split("::")[2]?.split("$").pop();
    if (type !== VM_TYPE)
      return Promise.reject(new Error(`unknown resource type ${type ?? urn}; this provider has ${VM_TYPE}`));
    return f(...args);
  };
}

/** The process's own: its cancel watch and its provider core, then the plugin server. */
export async function serve(args: string[]): Promise<void> {
  const watch = core.pluginCancelWatch();
  // This process's provider core: the one object that holds the provider's state.
  const processCore = core.configure({
    env: process.env,
    engineUnknown: ENGINE_UNKNOWN,
    log: () => engineLogTransport(process.argv),
    cancel: watch,
  });
  await startPlugin(processCore, args, watch);
}

/**
 * The plugin server over a provider core: its port is printed on stdout, as
 * the engine expects. `watch`: the engine's Cancel fires it (none in tests).
 * @internal exported for the contract test of the grpc-js patch
 */
export async function startPlugin(processCore: core.ProviderCore, args: string[], watch?: core.CancelWatch) {
  const root = packageRoot();
  const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
  const vmMethods = vmProviderMethods(processCore);
  const provider: Provider = {
    version,
    // The schema made from the zod schemas, as schema/schema.json holds it (lint keeps the two equal),
    // with the download URL the release baked into that file.
    getSchema: async () => JSON.stringify(packageSchema(version, bakedDownloadUrl(root))),
    check: forVm(vmMethods.check, 0),
    diff: forVm(vmMethods.diff, 1),
    create: forVm(vmMethods.create, 0),
    read: forVm(vmMethods.read, 1),
    update: forVm(vmMethods.update, 1),
    delete: forVm(vmMethods.delete, 1),
    // The engine's Cancel (one Ctrl-C): installs in flight stop waiting and answer with what exists.
    cancel: async () => watch?.cancel("the deployment was cancelled (Ctrl-C, or the engine's Cancel)"),
  };
  // The SDK's server answers Configure, CheckConfig, DiffConfig and Invoke itself, wrongly: the provider object
  // handed to grpc-js gets this provider's own four in front (grpc-add-service-patch.ts says how and why).
  patchAddService((impl) => withConfigCalls(processCore, impl));
  await main(provider, args);
}
