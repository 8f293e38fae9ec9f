// The exports that serialized providers of earlier releases call by name,
// kept apart from the loader: v0.1.0's text has seven methods, each calling
// the implementation's function of the same name (configure, check, diff,
// create, read, update, remove); cc006c1's one `configure` puts check..remove
// on the provider itself and then calls the implementation's `configure`.
// Both load this release's implementation through provider-impl, and the
// upgrade fixtures' tests (test/upgrade/) run them against states those
// releases wrote.
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, type dynamicVmMethods } from "../calls";
import type { ProviderCore } from "../core";

export function earlierReleaseExports(core: ProviderCore, vm: ReturnType<typeof dynamicVmMethods>) {
  return {
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      configureDynamic(core, req);
    },
    check: vm.check,
    diff: vm.diff,
    create: vm.create,
    read: vm.read,
    update: vm.update,
    remove: vm.delete,
  };
}
