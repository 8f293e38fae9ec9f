// Benchmark program: `count` Vms of ubuntu 24.04, named vm-0..vm-(count-1);
// with `pinFrom`, VM i pins VMID pinFrom + i, else the server picks VMIDs.
// The endpoint comes from stack config goPveQemu:endpoint.
import * as pulumi from "@pulumi/pulumi";
import { Vm } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const pinFrom = config.getNumber("pinFrom");

const vmids: pulumi.Output<number>[] = [];
for (let i = 0; i < count; i++) {
  const vm = new Vm(`vm-${i}`, {
    os: "ubuntu",
    version: "24.04",
    ...(pinFrom !== undefined ? { vmid: pinFrom + i } : {}),
  });
  vmids.push(vm.vmid);
}
export const created = pulumi.all(vmids).apply((ids) => ids.length);
