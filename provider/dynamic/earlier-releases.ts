// The exports that stored texts of earlier releases call by name (v0.1.0's
// seven methods; cc006c1's configure, which then calls `configure`), kept
// apart from the loader; CONTRIBUTING.md, "The dynamic provider's stored
// text", and the upgrade fixtures (test/upgrade/) say which and why.
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, type dynamicVmMethods } from "./vm-methods";
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
