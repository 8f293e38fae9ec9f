// The `Vm` resource users declare. Thin by design: it shapes the arguments,
// marks secrets, and hands everything to the serialized provider; all
// behaviour lives in the lifecycle functions.
import * as pulumi from "@pulumi/pulumi";
import { vmProvider } from "./serialized-provider";

/** Where and how to reach the go-pve-qemu server. */
export interface VmConnectionArgs {
  /** Base URL, e.g. http://10.0.0.5:8080. Default: stack config goPveQemu:endpoint, else GO_PVE_QEMU_ENDPOINT. */
  endpoint?: pulumi.Input<string>;
  /** Bearer token for a server behind an authenticating proxy. Default: goPveQemu:token, else GO_PVE_QEMU_TOKEN. */
  token?: pulumi.Input<string>;
  /** Extra headers sent with every request. */
  headers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /** PEM CA certificate(s) to trust for an https endpoint. */
  caCert?: pulumi.Input<string>;
}

export interface VmArgs {
  /** debian, ubuntu or rockylinux. Changing it replaces the VM. */
  os: pulumi.Input<"debian" | "ubuntu" | "rockylinux">;
  /** debian 11/12/13, ubuntu 20.04/22.04/24.04, rockylinux 8/9/10. Changing it replaces the VM. */
  version: pulumi.Input<string>;
  /** Name prefix; the server names the VM `<name>-<vmid>`. Changing it replaces the VM. */
  name?: pulumi.Input<string>;
  /** Pinned VMID (100..254; also the IP's last octet). Default: the server picks one. Replaces. */
  vmid?: pulumi.Input<number>;
  /** Proxmox node to run on. Changing it migrates the VM. */
  node?: pulumi.Input<string>;
  /** vCPUs, 1..32 (default 2). Updated in place (the VM is shut down and started again). */
  cpu?: pulumi.Input<number>;
  /** Memory in MB, 512..32768 (default 2048). Updated in place. */
  memoryMb?: pulumi.Input<number>;
  /** Disk in GB, >= 16 (default 16). Grows in place; cannot shrink. */
  diskGb?: pulumi.Input<number>;
  /** Login user (default by OS). Replaces. */
  user?: pulumi.Input<string>;
  /** Login password (secret). Default: a generated strong password, returned as a secret output. Replaces. */
  password?: pulumi.Input<string>;
  /** SSH public key for the user. Replaces. */
  sshPublicKey?: pulumi.Input<string>;
  /** Desired power state (default true). */
  running?: pulumi.Input<boolean>;
  /** Any change reboots a running VM. */
  rebootTriggers?: pulumi.Input<pulumi.Input<string>[]>;
  /** Connection settings; the ones a VM was created with are kept for refresh and delete. */
  connection?: pulumi.Input<VmConnectionArgs>;
  /** When an install fails after the VM was made: true destroys it at once; false (default) keeps it in state for the next `up`. */
  destroyOnCreateFailure?: pulumi.Input<boolean>;
  /**
   * Take the existing VM with `vmid` under management instead of installing one (import by VMID).
   * Its os and name must match. Pulumi's `import` option cannot serve dynamic providers; this can.
   */
  adopt?: pulumi.Input<boolean>;
}

/** Type token of the resource: pulumi-nodejs:dynamic/goPveQemu:Vm. */
const MODULE = "goPveQemu";
const TYPE = "Vm";

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
    const type = `pulumi-nodejs:dynamic/${MODULE}:${TYPE}`;
    const props = {
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
      // The provider logs under this resource's URN.
      __urn: pulumi.createUrn(name, type, opts?.parent),
    };
    super(
      vmProvider,
      name,
      props,
      {
        ...opts,
        additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "password", "connection"],
      },
      MODULE,
      TYPE,
    );
  }
}

/** A connection that carries credentials (token or headers) is a secret as a whole. */
function markCredentialsSecret(connection: pulumi.Input<VmConnectionArgs>): pulumi.Output<unknown> {
  return pulumi
    .output(connection)
    .apply((c) => (c.token !== undefined || c.headers !== undefined ? pulumi.secret(c) : c));
}
