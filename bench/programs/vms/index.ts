// Benchmark program: `count` Vms of ubuntu 24.04, named vm-0..vm-(count-1);
// with `pinFrom`, VM i pins VMID pinFrom + i, else the server picks VMIDs.
// The endpoint comes from stack config goPveQemu:endpoint (gopveqemu:endpoint
// on the resource plugin). Config `via: plugin` declares the Vms through the
// resource plugin (gopveqemu:index:Vm) by their type token, as a program in
// another language would, instead of the dynamic provider.
// For rollouts (bench/rollout.ts), all optional, and a Vm has none of these
// inputs when they are unset (so the other benchmarks' Vms stay as they were):
// `cpu` gives every VM that cpu count, `firstCpu` gives vm-0 its own instead
// (one VM's update in a stack of many), and `downtimeGroup` puts every VM in
// that downtime group.
import * as pulumi from "@pulumi/pulumi";
import { Vm, type VmArgs } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const pinFrom = config.getNumber("pinFrom");
const via = config.get("via") ?? "dynamic";
const cpu = config.getNumber("cpu");
const firstCpu = config.getNumber("firstCpu");
const downtimeGroup = config.get("downtimeGroup");

/** A Vm of the resource plugin: `vmid` is declared as an output so the program can read it. */
class PluginVm extends pulumi.CustomResource {
  declare readonly vmid: pulumi.Output<number>;
  constructor(name: string, args: VmArgs) {
    super("gopveqemu:index:Vm", name, { vmid: undefined, ...args });
  }
}

const vmids: pulumi.Output<number>[] = [];
for (let i = 0; i < count; i++) {
  const vmCpu = i === 0 ? (firstCpu ?? cpu) : cpu;
  const args: VmArgs = {
    os: "ubuntu",
    version: "24.04",
    ...(pinFrom !== undefined ? { vmid: pinFrom + i } : {}),
    ...(vmCpu !== undefined ? { cpu: vmCpu } : {}),
    ...(downtimeGroup !== undefined ? { downtimeGroup } : {}),
  };
  vmids.push(via === "plugin" ? new PluginVm(`vm-${i}`, args).vmid : new Vm(`vm-${i}`, args).vmid);
}
export const created = pulumi.all(vmids).apply((ids) => ids.length);
