// The VMs of stack config `vms` ({ name: VmArgs }); a VM's password comes
// from the secret config `password-<name>` when set, else from the file that
// config `passwordFile-<name>` names (a secret kept outside the stack config). The VMs named in config
// `grouped` (a list) are children of one component resource, `group`.
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { Vm, type VmArgs } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const declared = config.requireObject<Record<string, VmArgs>>("vms");
const grouped = config.getObject<string[]>("grouped") ?? [];
const group = grouped.length > 0 ? new pulumi.ComponentResource("test:index:Group", "group") : undefined;

const out: Record<string, unknown> = {};
for (const [name, args] of Object.entries(declared)) {
  const file = config.get(`passwordFile-${name}`);
  const password =
    config.getSecret(`password-${name}`) ?? (file ? pulumi.secret(fs.readFileSync(file, "utf8").trim()) : undefined);
  const parent = grouped.includes(name) ? group : undefined;
  const vm = new Vm(name, { ...args, ...(password ? { password } : {}) }, { parent });
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
