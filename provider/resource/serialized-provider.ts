// The provider object that Pulumi serializes into every Vm's state.
//
// Pulumi stores the source text of a dynamic provider (with everything its
// functions capture) in the `__provider` property of each resource's inputs
// AND outputs, and the file backend rewrites the whole state at every step of
// a deployment: each byte of that text is written twice per VM per step. So
// the text is kept to one function. Pulumi wraps every serialized function in
// about 200 bytes of scaffolding; seven methods that each delegate to the
// implementation came to 2.5 KB per copy, this is under 1 KB.
//
// The one function is `configure`. The dynamic provider host calls it once,
// first, before any other method, and waits for it (getProvider in
// @pulumi/pulumi/cmd/dynamic-provider); it loads the implementation, whose
// `attach` puts its methods on this object and then configures it.
//
// The implementation is found through the package from the program's folder
// (the provider process runs there): the checkout or install that runs
// `pulumi` now, wherever it lives. When that folder does not resolve the
// package, the absolute path of the copy that wrote the state is used. The
// text captures only those two strings, so it does not change when the
// implementation does, and upgrading the library is not a diff on every VM.
//
// State written by earlier releases holds their text: v0.1.0's seven methods,
// each calling the implementation's function of the same name (configure,
// check, diff, create, read, update, remove), and cc006c1's one `configure`
// that puts check..remove on the provider itself and then calls the
// implementation's `configure`. The implementation keeps all those exports at
// the same module path (they live in earlier-releases.ts, apart from this
// loader), so each old text loads this release's implementation too.
import type * as pulumi from "@pulumi/pulumi";

const IMPL_PACKAGE = "go-pve-qemu-pulumi/provider-impl";
const IMPL_PATH: string = require.resolve("./provider-impl");

// A top-level function (not a method in an object literal) and one statement
// per step: the stored text is this function's source as compiled, indentation
// and all. No comment goes inside it for the same reason.
async function configure(this: pulumi.dynamic.ResourceProvider, req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  let path: string;
  try {
    path = require.resolve(IMPL_PACKAGE, { paths: [process.cwd()] });
  } catch {
    path = IMPL_PATH;
  }
  const impl: typeof import("./provider-impl") = require(path);
  return impl.attach(this, req);
}

/**
 * Typed as a full provider for `dynamic.Resource`; until `configure` has run it
 * has no other method, which is all the host ever sees of it.
 */
export const vmProvider = { configure } as unknown as pulumi.dynamic.ResourceProvider;

/**
 * The StackIdentity resource's provider: the same one function, and a name
 * the implementation tells it apart by (`attach`).
 */
export const identityProvider = {
  configure,
  resource: "StackIdentity",
} as unknown as pulumi.dynamic.ResourceProvider;
