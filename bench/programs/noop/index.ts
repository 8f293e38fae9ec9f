// Benchmark program: `count` dynamic resources whose provider does nothing
// (create answers at once): what the engine itself costs per resource. With
// `pad`, each resource also carries a string of that many bytes (in its
// inputs and outputs, as Pulumi stores them): what state bytes alone cost.
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const pad = config.getNumber("pad") ?? 0;

const noopProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: { index: number }) {
    return { id: `noop-${inputs.index}`, outs: inputs };
  },
};

class Noop extends pulumi.dynamic.Resource {
  declare readonly index: pulumi.Output<number>;
  constructor(name: string, index: number) {
    super(noopProvider, name, { index, ...(pad > 0 ? { pad: "x".repeat(pad) } : {}) }, {}, "bench", "Noop");
  }
}

const ids: pulumi.Output<number>[] = [];
for (let i = 0; i < count; i++) ids.push(new Noop(`noop-${i}`, i).index);
export const created = pulumi.all(ids).apply((xs) => xs.length);
