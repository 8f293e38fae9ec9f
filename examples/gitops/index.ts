// The fleet of a stack, as data: stack config `vms` (in Pulumi.<stack>.yaml)
// maps a VM's resource name to its settings. Changing the fleet is editing
// that file in a pull request: CI previews the change on the pull request and
// applies it when it is merged (see workflow.yml and README.md).
import * as pulumi from "@pulumi/pulumi";
import { Vm } from "go-pve-qemu-pulumi";

interface VmSpec {
  os: "debian" | "ubuntu" | "rockylinux";
  version: string;
  /**
   * Name prefix on the server. Leave it out: the provider then derives one
   * from the stack and the key (`web-3f9a0c12`), by which the next run finds a
   * VM that a killed run was installing; a given name is never taken over.
   */
  name?: string;
  vmid?: number;
  node?: string;
  cpu?: number;
  memoryMb?: number;
  diskGb?: number;
  user?: string;
  sshPublicKey?: string;
  running?: boolean;
  /** Keys of other VMs of this fleet whose address this VM depends on (it reboots when one changes). */
  after?: string[];
}

const config = new pulumi.Config();
const specs = config.requireObject<Record<string, VmSpec>>("vms");

const vms: Record<string, Vm> = {};
function declare(key: string, seen: string[] = []): Vm {
  const existing = vms[key];
  if (existing) return existing;
  const spec = specs[key];
  if (!spec) throw new Error(`vms.${seen.at(-1)}.after names "${key}", which is not in vms`);
  if (seen.includes(key)) throw new Error(`vms: "after" forms a cycle: ${[...seen, key].join(" -> ")}`);
  const { after = [], ...args } = spec;
  const upstream = after.map((other) => declare(other, [...seen, key]));
  const vm = new Vm(key, {
    ...args,
    // The VMID stands for the IP (the server gives <gateway's /24>.<vmid>), and it is known even for
    // a VM taken over after a killed run, whose IP the provider could not read from an install stream.
    ...(upstream.length > 0 ? { rebootTriggers: upstream.map((u) => u.vmid.apply(String)) } : {}),
  });
  vms[key] = vm;
  return vm;
}
for (const key of Object.keys(specs)) declare(key);

export const fleet = Object.fromEntries(
  Object.entries(vms).map(([key, vm]) => [
    key,
    { vmName: vm.vmName, vmid: vm.vmid, ip: vm.ip, node: vm.node, cpu: vm.cpu, memoryMb: vm.memoryMb },
  ]),
);
