// A small fleet on one go-pve-qemu server:
//
//   db          pinned VMID (so a fixed IP: the server derives the IP from the VMID)
//   app         follows the db: its rebootTriggers hold the db's IP, so it is created
//               after the db and rebooted whenever the db comes back with a new address
//   worker-0..N a loop over config `workerCount`, sized by config, resized in place:
//                 pulumi config set workerCpu 4 && pulumi up
//   backup      on another Proxmox node, explicitly ordered after the db (dependsOn)
//
// Config (all optional): workerCount (2), workerCpu (2), workerMemoryMb (2048),
// workerDiskGb (16, can only grow), dbVmid (130), backupNode (pve2), and
// goPveQemu:endpoint for the server.
import * as pulumi from "@pulumi/pulumi";
import { Vm } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const workerCount = config.getNumber("workerCount", { min: 0, max: 20 }) ?? 2;
const workerCpu = config.getNumber("workerCpu", { min: 1, max: 32 }) ?? 2;
const workerMemoryMb = config.getNumber("workerMemoryMb", { min: 512, max: 32768 }) ?? 2048;
const workerDiskGb = config.getNumber("workerDiskGb", { min: 16 }) ?? 16;
const dbVmid = config.getNumber("dbVmid", { min: 100, max: 254 }) ?? 130;
const backupNode = config.get("backupNode") ?? "pve2";

// The database: a pinned VMID, so its IP (x.y.z.<vmid>) is known before it exists.
const db = new Vm("db", {
  os: "debian",
  version: "12",
  name: "db",
  vmid: dbVmid,
  cpu: 2,
  memoryMb: 4096,
  diskGb: 32,
});

// The app reads the db's address at boot. Using db.ip as an input makes the
// dependency explicit to the engine (db first), and as a reboot trigger it
// reboots the app whenever the address changes (e.g. the db was replaced).
const app = new Vm("app", {
  os: "ubuntu",
  version: "24.04",
  name: "app",
  rebootTriggers: [db.ip],
});

// Workers: one resource per index. Lowering workerCount deletes the highest
// indexes; changing workerCpu/workerMemoryMb/workerDiskGb updates every worker
// in place (shut down, resized, started again).
const workers: Vm[] = [];
for (let i = 0; i < workerCount; i++) {
  workers.push(
    new Vm(`worker-${i}`, {
      os: "rockylinux",
      version: "9",
      name: `worker${i}`,
      cpu: workerCpu,
      memoryMb: workerMemoryMb,
      diskGb: workerDiskGb,
    }),
  );
}

// On another node, and only once the db exists (an ordering no input expresses).
const backup = new Vm(
  "backup",
  { os: "debian", version: "13", name: "backup", node: backupNode, diskGb: 64 },
  { dependsOn: [db] },
);

export const ips = {
  db: db.ip,
  app: app.ip,
  backup: backup.ip,
  workers: workers.map((w) => w.ip),
};
export const vmids = { db: db.vmid, app: app.vmid, backup: backup.vmid, workers: workers.map((w) => w.vmid) };
export const backupPlacement = pulumi.interpolate`${backup.vmName} on ${backup.node}`;
export const workerVms = workers.map((w) => ({ name: w.vmName, cpu: w.cpu, memoryMb: w.memoryMb, diskGb: w.diskGb }));
// Secret: shown as [secret] unless `pulumi stack output dbPassword --show-secrets`.
export const dbPassword = db.password;
