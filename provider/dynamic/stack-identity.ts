// The stack's identity: one small resource per stack, made by the first Vm
// the program declares, holding a random value created once and kept in the
// stack's own state. go-pve-qemu keeps no tags, so a VM's name is the only
// mark the provider can leave on it; keyed by this value (which no other
// stack has, whatever its project, stack and resource names), the mark is
// one only this stack can make, and so evidence that this stack made the VM.
// It also keys this machine's install journal. Every Vm takes it as an input,
// so it exists before any install begins and survives a killed deployment.
import * as pulumi from "@pulumi/pulumi";
import { identityProvider } from "./serialized-provider";
import { DYNAMIC_MODULE, STACK_IDENTITY } from "../tokens";

/** The resource's name in every stack: one per stack. */
const NAME = "go-pve-qemu-stack";

class StackIdentity extends pulumi.dynamic.Resource {
  /** 32 hex digits; a secret, since it is the key of the marks. */
  declare readonly identity: pulumi.Output<string>;

  constructor() {
    super(
      identityProvider,
      NAME,
      { identity: undefined },
      { additionalSecretOutputs: ["identity"] },
      DYNAMIC_MODULE,
      STACK_IDENTITY,
    );
  }
}

/** Where a run's identity is kept on its stack resource: one per run (the Automation API may run several in one process). */
const IDENTITY = Symbol.for("go-pve-qemu-pulumi.stackIdentity");

/** The stack's identity, declaring its resource the first time it is asked for in this run. */
export function stackIdentity(): pulumi.Output<string> {
  const stack = pulumi.runtime.getStackResource() as { [IDENTITY]?: pulumi.Output<string> } | undefined;
  // Outside a program run (a test's mocks without a stack) nothing is kept: each Vm declares its own.
  if (stack === undefined) return new StackIdentity().identity;
  stack[IDENTITY] ??= new StackIdentity().identity;
  return stack[IDENTITY];
}
