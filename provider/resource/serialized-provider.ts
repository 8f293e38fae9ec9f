// The provider object that Pulumi serializes into every Vm's state.
//
// Pulumi stores the source text of a dynamic provider (with everything its
// functions capture) in the `__provider` property of each resource, and runs
// that text in the provider process. Each function here captures one string,
// the absolute path of the compiled implementation, and requires it at run
// time: the serialized text stays about 2.5 KB (mostly Pulumi's wrapping of
// each method), and it does not change when the implementation does, so
// upgrading this library never shows up as a diff on every VM.
import type * as pulumi from "@pulumi/pulumi";

/** Absolute path of provider-impl.js next to this file (resolved when the program runs). */
const IMPL_PATH: string = require.resolve("./provider-impl");
/** Fallback when the state was written from another checkout: resolve through node_modules. */
const IMPL_PACKAGE_PATH = "go-pve-qemu-pulumi/dist/provider/resource/provider-impl.js";

export const vmProvider: pulumi.dynamic.ResourceProvider = {
  configure: (req) => impl().configure(req),
  check: (olds, news) => impl().check(olds, news),
  diff: (id, olds, news) => impl().diff(id, olds, news),
  create: (inputs) => impl().create(inputs),
  read: (id, props) => impl().read(id, props),
  update: (id, olds, news) => impl().update(id, olds, news),
  delete: (id, props) => impl().remove(id, props),
};

function impl(): typeof import("./provider-impl") {
  if (require("node:fs").existsSync(IMPL_PATH)) return require(IMPL_PATH);
  return require(require.resolve(IMPL_PACKAGE_PATH, { paths: [process.cwd()] }));
}
