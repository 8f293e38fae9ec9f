// The provider object that Pulumi serializes into every Vm's state: one
// function, `configure`, which the dynamic provider host calls first and
// waits for. It loads the implementation (provider-impl.ts), whose `attach`
// puts the methods on this object and configures it. The text captures only
// the implementation's package path and this copy's absolute path (the
// fallback when the program's folder does not resolve the package), so it
// is small (the file backend rewrites it twice per VM per step) and does not
// change when the implementation does. Why it has this shape, and how the
// texts of earlier releases load this release: CONTRIBUTING.md, "The dynamic
// provider's stored text".
import type * as pulumi from "@pulumi/pulumi";
import { STACK_IDENTITY } from "../tokens";

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
  resource: STACK_IDENTITY,
} as unknown as pulumi.dynamic.ResourceProvider;
