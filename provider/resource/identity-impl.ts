// The StackIdentity resource's provider (stack-identity.ts): it makes a
// random value once, at create, and never changes it. Nothing asks a server.
import { randomBytes } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";

type Bag = Record<string, unknown>;

/** 128 random bits, as hex: the key of the marks in VM names and of the install journal. */
function newIdentity(): string {
  return randomBytes(16).toString("hex");
}

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
