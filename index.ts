// Quickstart: four VMs on a go-pve-qemu server.
//
//   pulumi config set goPveQemu:endpoint http://<server>:8080
//   pulumi up
//
// `npm run demo` runs this program against the bundled simulator.
import * as pulumi from "@pulumi/pulumi";
import { Vm } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();

// A pinned VMID: the VM's IP ends in .120 (the server derives it from the VMID).
const web = new Vm("web", {
  os: "ubuntu",
  version: "24.04",
  name: "web",
  vmid: 120,
  cpu: config.getNumber("webCpu") ?? 2,
  memoryMb: 4096,
  diskGb: 32,
});

// Auto-assigned VMIDs: installs without a VMID are serialized just long enough to never collide.
const db = new Vm("db", { os: "debian", version: "12", name: "db", cpu: 4, memoryMb: 8192, diskGb: 40 });
const cache = new Vm("cache", { os: "debian", version: "13", name: "cache", memoryMb: 2048 });

// On another Proxmox node.
const worker = new Vm("worker", { os: "rockylinux", version: "9", name: "worker", node: "pve2" });

export const ips = { web: web.ip, db: db.ip, cache: cache.ip, worker: worker.ip };
export const vmids = { web: web.vmid, db: db.vmid, cache: cache.vmid, worker: worker.vmid };
export const webPassword = web.password;
