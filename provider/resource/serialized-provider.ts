// The provider object that Pulumi serializes into every Vm's state.
//
// Pulumi stores the source text of a dynamic provider (with everything its
// functions capture) in the `__provider` property of each resource, and runs
// that text in the provider process. The functions here capture only two
// strings, the package path of the compiled implementation and its absolute
// path as a fallback, and require it at run time: the serialized text stays
// about 2.5 KB (mostly Pulumi's wrapping of each method), and it does not
// change when the implementation does, so upgrading this library never shows
// up as a diff on every VM.
import type * as pulumi from "@pulumi/pulumi";

/**
 * The implementation is found through the package, from the program's folder
 * (the provider process runs there): the checkout or install that runs
 * `pulumi` now, wherever it lives. State written on another machine or from
 * another folder names paths that may not exist here.
 */
const IMPL_PACKAGE = "go-pve-qemu-pulumi/provider-impl";
/** Fallback when the program's folder does not resolve the package: the copy that wrote the state. */
const IMPL_PATH: string = require.resolve("./provider-impl");

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
  let path = IMPL_PATH;
  try {
    path = require.resolve(IMPL_PACKAGE, { paths: [process.cwd()] });
  } catch {
    // not resolvable from here: use the path recorded when the state was written
  }
  return require(path);
}
