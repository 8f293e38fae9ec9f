// The StackIdentity resource's provider methods: a random value made once at
// create and kept in state; no server, no settings, no lifecycle.
import type * as pulumi from "@pulumi/pulumi";
import { newIdentity } from "../core";

type Bag = Record<string, unknown>;

export const identityMethods = {
  async check(_olds: Bag, news: Bag): Promise<pulumi.dynamic.CheckResult> {
    return { inputs: news };
  },
  async diff(): Promise<pulumi.dynamic.DiffResult> {
    // Made once, kept for the stack's life: a new one would orphan every interrupted create's VM.
    return { changes: false };
  },
  async create(inputs: Bag): Promise<pulumi.dynamic.CreateResult> {
    const identity = newIdentity();
    return { id: identity.slice(0, 8), outs: { ...inputs, identity } };
  },
  async read(id: string, props?: Bag): Promise<pulumi.dynamic.ReadResult> {
    return { id, props: props ?? {} };
  },
  async update(_id: string, olds: Bag): Promise<pulumi.dynamic.UpdateResult> {
    return { outs: olds };
  },
  async delete(): Promise<void> {
    // nothing exists outside the stack's state
  },
};
