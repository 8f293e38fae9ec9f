// The exports that stored texts of earlier releases call by name (v0.1.0's
// seven methods; cc006c1's configure, which then calls `configure`), kept
// apart from the loader; CONTRIBUTING.md, "The dynamic provider's stored
// text", and the upgrade fixtures (test/upgrade/) say which and why.
import type * as pulumi from "@pulumi/pulumi";
import { configureDynamic, type ProcessProvider } from "./vm-methods";

type Bag = Record<string, unknown>;

/** The exports over this process's provider, which is made at the first call. */
export function earlierReleaseExports(provider: () => ProcessProvider) {
  return {
    async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
      configureDynamic(provider().core, req);
    },
    check: (olds: Bag, news: Bag) => provider().vm.check(olds, news),
    diff: (id: string, olds: Bag, news: Bag) => provider().vm.diff(id, olds, news),
    create: (inputs: Bag) => provider().vm.create(inputs),
    read: (id: string, props?: Bag) => provider().vm.read(id, props),
    update: (id: string, olds: Bag, news: Bag) => provider().vm.update(id, olds, news),
    remove: (id: string, props: Bag) => provider().vm.delete(id, props),
  };
}
