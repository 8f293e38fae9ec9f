// Benchmark program: `count` no-op dynamic resources that carry the state of
// a Vm. BENCH_VM_STATE (JSON: one Vm's inputs and outputs from a real `up`,
// and which outputs are secrets) is what each resource declares and what its
// provider's create returns, at once. Beside the floor (bench/programs/noop),
// it shows what the engine charges for the state a Vm holds; beside the Vm,
// what the provider's own work costs. The template travels in the
// environment, which the program and the provider process both inherit, so
// the serialized provider does not carry it. Its text comes out about as long
// as the Vm's (850 bytes). A Vm also takes the stack identity's secret value
// as an input (encrypted in state, a dependency on that resource, which it
// waits for): the same edge is here, to one ShapedIdentity, so a resource
// holds a Vm's bytes within 2% (engine-overhead checks this in every run).
import * as pulumi from "@pulumi/pulumi";

interface VmState {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  secretOutputs: string[];
}

const MISSING = "BENCH_VM_STATE is not set: bench/engine-overhead.ts gives it (a Vm's state, bench/common.ts)";

const config = new pulumi.Config();
const count = config.requireNumber("count");
if (!process.env.BENCH_VM_STATE) throw new Error(MISSING);
const template = JSON.parse(process.env.BENCH_VM_STATE) as VmState;

const shapedProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: { index: number }) {
    if (!process.env.BENCH_VM_STATE) throw new Error(MISSING);
    const state = JSON.parse(process.env.BENCH_VM_STATE) as VmState;
    return { id: String(inputs.index), outs: { ...state.outputs, index: inputs.index } };
  },
};

/** The stack identity's value from the template, given back at once as a secret output. */
const identityProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: { identity: string }) {
    return { id: "identity", outs: inputs };
  },
};

class ShapedIdentity extends pulumi.dynamic.Resource {
  declare readonly identity: pulumi.Output<string>;
  constructor(identity: string) {
    super(
      identityProvider,
      "go-pve-qemu-stack",
      { identity: pulumi.secret(identity) },
      { additionalSecretOutputs: ["identity"] },
      "bench",
      "Identity",
    );
  }
}

const IDENTITY_KEY = "__stackIdentity";
const identityValue = template.inputs[IDENTITY_KEY];
const identity = typeof identityValue === "string" ? new ShapedIdentity(identityValue).identity : undefined;

class Shaped extends pulumi.dynamic.Resource {
  declare readonly index: pulumi.Output<number>;
  constructor(name: string, index: number) {
    super(
      shapedProvider,
      name,
      { ...template.inputs, ...(identity ? { [IDENTITY_KEY]: identity } : {}), index },
      { additionalSecretOutputs: template.secretOutputs },
      "bench",
      "Shaped",
    );
  }
}

const ids: pulumi.Output<number>[] = [];
for (let i = 0; i < count; i++) ids.push(new Shaped(`shaped-${i}`, i).index);
export const created = pulumi.all(ids).apply((xs) => xs.length);
