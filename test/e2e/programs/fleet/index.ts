// The VMs of stack config `vms` ({ name: VmArgs }); a VM's password comes
// from the secret config `password-<name>` when set, else from the file that
// config `passwordFile-<name>` names (a secret kept outside the stack config). The VMs named in config
// `grouped` (a list) are children of one component resource, `group`. Config
// `via: plugin` declares them through the resource plugin (gopveqemu:index:Vm)
// instead of the dynamic provider, as a program in another language would;
// there, config `servers` ({ name: endpoint }) declares explicit providers, and
// a VM's `server` names the one it is made through. Config `options` ({ name:
// Pulumi's resource options }) gives a VM its options; `aliases` names the
// old resource names, `deletedWith` another VM of the program (declared first).
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { Vm, type VmArgs } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const declared = config.requireObject<Record<string, VmArgs>>("vms");
const grouped = config.getObject<string[]>("grouped") ?? [];
const via = config.get("via") ?? "dynamic";
const group = grouped.length > 0 ? new pulumi.ComponentResource("test:index:Group", "group") : undefined;

/** The outputs a plugin Vm has (an output exists only for a key among its properties). */
const OUTPUTS = ["vmid", "ip", "vmName", "node", "user", "cpu", "memoryMb", "diskGb", "running", "password"];

/** A Vm of the resource plugin, declared by its type token alone (no SDK). */
class PluginVm extends pulumi.CustomResource {
  constructor(name: string, args: VmArgs, opts: pulumi.CustomResourceOptions) {
    const props: pulumi.Inputs = Object.fromEntries(OUTPUTS.map((k) => [k, undefined]));
    super("gopveqemu:index:Vm", name, { ...props, ...args }, opts);
  }
}

/** An explicit provider of the resource plugin, for a second server. */
class PluginProvider extends pulumi.ProviderResource {
  constructor(name: string, endpoint: string) {
    super("gopveqemu", name, { endpoint });
  }
}

/** Pulumi's resource options of a VM, as config can say them. */
interface DeclaredOptions {
  protect?: boolean;
  retainOnDelete?: boolean;
  ignoreChanges?: string[];
  additionalSecretOutputs?: string[];
  deleteBeforeReplace?: boolean;
  aliases?: string[];
  deletedWith?: string;
}
const options = config.getObject<Record<string, DeclaredOptions>>("options") ?? {};
const made = new Map<string, pulumi.Resource>();

/** The resource options config gives VM `name`. */
function optionsOf(name: string): pulumi.CustomResourceOptions {
  const { aliases, deletedWith, ...rest } = options[name] ?? {};
  const other = deletedWith === undefined ? undefined : made.get(deletedWith);
  if (deletedWith !== undefined && other === undefined)
    throw new Error(`${name}: deletedWith ${deletedWith}: no such VM before it`);
  return {
    ...rest,
    ...(aliases ? { aliases: aliases.map((a) => ({ name: a })) } : {}),
    ...(other ? { deletedWith: other } : {}),
  };
}

const servers = Object.entries(config.getObject<Record<string, string>>("servers") ?? {});
const providers = new Map(servers.map(([name, endpoint]) => [name, new PluginProvider(name, endpoint)]));

function declare(name: string, args: VmArgs & { server?: string }, opts: pulumi.CustomResourceOptions): Vm {
  const { server, ...vm } = args;
  if (via !== "plugin") return new Vm(name, vm, opts);
  const provider = server === undefined ? undefined : providers.get(server);
  if (server !== undefined && provider === undefined) throw new Error(`${name}: no server ${server} in config servers`);
  return new PluginVm(name, vm, { ...opts, provider }) as unknown as Vm;
}

const out: Record<string, unknown> = {};
for (const [name, args] of Object.entries(declared)) {
  const file = config.get(`passwordFile-${name}`);
  const password =
    config.getSecret(`password-${name}`) ?? (file ? pulumi.secret(fs.readFileSync(file, "utf8").trim()) : undefined);
  const parent = grouped.includes(name) ? group : undefined;
  const vm = declare(name, { ...args, ...(password ? { password } : {}) }, { parent, ...optionsOf(name) });
  made.set(name, vm);
  out[name] = {
    vmid: vm.vmid,
    ip: vm.ip,
    vmName: vm.vmName,
    node: vm.node,
    user: vm.user,
    cpu: vm.cpu,
    memoryMb: vm.memoryMb,
    diskGb: vm.diskGb,
    running: vm.running,
    password: vm.password,
  };
}
export const vms = out;
