// A TypeScript program on the generated SDK of the gopveqemu resource plugin
// (sdk/nodejs, the npm package @go-pve-qemu/pulumi): one Vm, its cpu from the
// stack's config. The engine runs the plugin; nothing of the dynamic
// provider is loaded.
import * as pulumi from "@pulumi/pulumi";
import * as gopveqemu from "@go-pve-qemu/pulumi";

const config = new pulumi.Config();
const web = new gopveqemu.Vm("web", {
  os: "ubuntu",
  version: "24.04",
  name: "web",
  cpu: config.requireNumber("cpu"),
  memoryMb: 2048,
});

export const vmid = web.vmid;
export const cpu = web.cpu;
