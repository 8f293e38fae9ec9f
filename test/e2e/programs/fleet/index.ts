// The VMs of stack config `vms` ({ name: VmArgs }); a VM's password comes
// from the secret config `password-<name>` when set.
import * as pulumi from "@pulumi/pulumi";
import { Vm, type VmArgs } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const declared = config.requireObject<Record<string, VmArgs>>("vms");

const out: Record<string, unknown> = {};
for (const [name, args] of Object.entries(declared)) {
  const password = config.getSecret(`password-${name}`);
  const vm = new Vm(name, { ...args, ...(password ? { password } : {}) });
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
