// The `Vm` resource users declare. Thin by design: it shapes the arguments,
// marks secrets, and hands everything to the serialized provider; all
// behaviour lives in the lifecycle functions.
import * as pulumi from "@pulumi/pulumi";
import { IDENTITY_KEY, SECRET_OUTPUTS, URN_KEY, carriesCredentials } from "../engine";
import type { ConnectionInput, DeclaredInputs } from "../lifecycle";
import { vmProvider } from "./serialized-provider";
import { stackIdentity } from "./stack-identity";
import { DYNAMIC_MODULE, DYNAMIC_VM, DYNAMIC_VM_TYPE } from "../tokens";

/**
 * A plain input type made Pulumi inputs all the way down: every value may be
 * an Input (a promise or an Output of another resource), list items and
 * object fields too.
 */
type Inputs<T> = T extends readonly (infer E)[]
  ? pulumi.Input<Inputs<E>>[]
  : T extends object
    ? { [K in keyof T]: pulumi.Input<Inputs<Exclude<T[K], undefined>>> }
    : T;

/** Where and how to reach the go-pve-qemu server (derived from the input schema's `connection`). */
export type VmConnectionArgs = Inputs<ConnectionInput>;

/**
 * The inputs of a Vm, derived from the lifecycle's input schema, which
 * `pulumi preview` checks them against. Allowed values: README, "The Vm resource".
 */
export type VmArgs = Inputs<DeclaredInputs>;

/** Type token of the resource: pulumi-nodejs:dynamic/goPveQemu:Vm. */

export class Vm extends pulumi.dynamic.Resource {
  /** The VMID (auto-assigned or pinned). */
  declare readonly vmid: pulumi.Output<number>;
  /** IPv4 address, without prefix length. */
  declare readonly ip: pulumi.Output<string>;
  /** The server's real name: `<name>-<vmid>`, or `<vmid>`. */
  declare readonly vmName: pulumi.Output<string>;
  declare readonly node: pulumi.Output<string>;
  declare readonly user: pulumi.Output<string>;
  declare readonly cpu: pulumi.Output<number>;
  declare readonly memoryMb: pulumi.Output<number>;
  declare readonly diskGb: pulumi.Output<number>;
  declare readonly running: pulumi.Output<boolean>;
  /** Secret. */
  declare readonly password: pulumi.Output<string>;

  constructor(name: string, args: VmArgs, opts?: pulumi.CustomResourceOptions) {
    const limit = Error.stackTraceLimit;
    if (!KEEP_PROMISE_STACKS) Error.stackTraceLimit = 0;
    try {
      super(vmProvider, name, propsOf(name, args, opts), optionsOf(opts), DYNAMIC_MODULE, DYNAMIC_VM);
    } catch (err) {
      Error.stackTraceLimit = limit;
      // Made while stacks were off: it gets the stack of this `new Vm(...)`.
      if (err instanceof Error && !err.stack?.includes("\n")) Error.captureStackTrace(err, Vm);
      throw err;
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/**
 * Pulumi's SDK gives each of the four promises per property a stack trace
 * (formatted at once by source-map support) that it reads only when
 * PULUMI_DEBUG_PROMISE_LEAKS is set: most of what a program spent per VM. So
 * the constructor turns stack traces off while it runs, unless that is set.
 * The SDK's record of where the resource was declared lifts the limit itself.
 */
const KEEP_PROMISE_STACKS = !!process.env.PULUMI_DEBUG_PROMISE_LEAKS;

const TYPE_TOKEN = DYNAMIC_VM_TYPE;

function propsOf(name: string, args: VmArgs, opts: pulumi.CustomResourceOptions | undefined): pulumi.Inputs {
  return {
    ...args,
    // Secrets stay secrets in state and output, whatever the caller passed.
    password: args.password === undefined ? undefined : pulumi.secret(args.password),
    connection: args.connection === undefined ? undefined : markCredentialsSecret(args.connection),
    // Every output is declared (an output exists only for a key present here).
    vmid: args.vmid,
    ip: undefined,
    vmName: undefined,
    node: args.node,
    user: args.user,
    cpu: args.cpu,
    memoryMb: args.memoryMb,
    diskGb: args.diskGb,
    running: args.running,
    // The provider logs under this resource's URN (and marks the VM's name for it).
    [URN_KEY]: urnOf(name, TYPE_TOKEN, opts?.parent),
    // The key of that mark and of this machine's install journal: evidence of whose VM it is.
    [IDENTITY_KEY]: stackIdentity(),
  };
}

function optionsOf(opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  return {
    ...opts,
    additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...SECRET_OUTPUTS],
  };
}

/**
 * The URN the engine gives this resource. Without a parent it is known at
 * once, so no Output is made for it: a program pays a stack trace for every
 * Output it creates (Pulumi keeps one on each promise), which is the most of
 * what declaring a resource costs. With a parent, Pulumi's createUrn (the
 * parent's type becomes part of the URN).
 */
function urnOf(name: string, type: string, parent: pulumi.Resource | undefined): pulumi.Input<string> {
  if (parent !== undefined) return pulumi.createUrn(name, type, parent);
  return `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`;
}

/** A connection that carries credentials (token or headers) is a secret as a whole. */
function markCredentialsSecret(connection: pulumi.Input<VmConnectionArgs>): pulumi.Output<unknown> {
  return pulumi.output(connection).apply((c) => (carriesCredentials(c) ? pulumi.secret(c) : c));
}
