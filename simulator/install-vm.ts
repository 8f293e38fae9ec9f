// POST /api/vm/install, second half: `VM creation` and `VM initialization`.
// Which failures clean up is the server's: disk import, initialisation and
// SSH initialisation destroy the half-made VM (qm stop, 5 s, qm destroy, then
// the error event); a failed migration, qm start or qm reboot returns without
// any event (the handler still writes `event: close`), SSH wait timeouts send
// an error event; those three leave the VM behind.
import { seconds } from "./clock";
import type { Flow } from "./flow";
import type { InstallJob, Outcome } from "./install-job";
import { migrate } from "./migrate";
import { initScriptFailureLines, initScriptLines } from "./outputs";
import { GIB, type VmRecord } from "./state";

const SSH_TIMEOUT = "[-] failed to connect to VM via SSH: [-] SSH timeout";

export async function runVmStages(flow: Flow, job: InstallJob): Promise<Outcome> {
  const { core, d } = flow;
  const store = core.store;
  const exists = (): VmRecord | undefined => store.vms.get(job.id);

  flow.startStep();
  let step = "VM creation > creating VM";
  await flow.enter("creating VM");
  flow.emit(step, "processing", "[*] VM creation");
  const createFault = flow.failing("creating VM");
  // qm create checks and writes the config at once: from here the VMID is taken.
  const taken = store.vms.has(job.id) || store.isDisabled(job.id) || job.id < 100 || job.id > 999_999_999;
  if (!createFault && !taken) {
    store.addVm({
      vmid: job.id,
      name: job.name,
      requestedName: job.requestedName,
      os: "",
      version: job.version,
      node: core.cfg.mainNode,
      cpu: job.cpu,
      memoryMb: job.ram,
      diskGb: 0,
      running: false,
      user: job.user,
    });
  }
  await flow.spend(d.createVm);
  if (createFault || taken) {
    if (taken && job.autoId) core.stats.vmidCollisions++;
    flow.emit(step, "error", `[-] failed to create VM: ${createFault?.detail ?? "exit status 255"}`);
    return "error";
  }
  flow.names = [...new Set([...flow.names, job.name])];
  flow.emit(step, "success", `[+] VM created successfully (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "VM creation > importing disk image";
  await flow.enter("importing disk image");
  flow.emit(step, "processing", "[*] import disk image");
  await flow.spend(d.importDisk);
  const importFault = flow.failing("importing disk image");
  if (importFault || !exists()) {
    await cleanUp(flow, job);
    flow.emit(step, "error", `[-] failed to import disk image: ${importFault?.detail ?? "exit status 255"}`);
    return "error";
  }
  flow.emit(step, "success", `[+] disk image imported successfully (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "VM initialization > initializing configuration";
  await flow.enter("initializing configuration");
  flow.emit(step, "processing", "[*] initializing VM");
  await flow.spend(d.initConfig);
  const initFault = flow.failing("initializing configuration");
  const vm = exists();
  if (initFault || !vm) {
    await cleanUp(flow, job);
    flow.emit(step, "error", `[-] failed to initialize VM: ${initFault?.detail ?? "exit status 255"}`);
    return "error";
  }
  // qm set --tags <os>, --scsi0 <disk>, qm resize scsi0 <size>
  vm.os = job.os.toLowerCase();
  vm.diskBytes = parseInt(job.disk, 10) * GIB;
  store.persist();
  flow.emit(step, "success", `[+] VM initialized successfully (${seconds(flow.since())}s)`);

  if (job.node !== "") {
    flow.startStep();
    step = "VM initialization > migrating VM";
    await flow.enter("migrating VM");
    flow.emit(step, "processing", `[*] migrate VM to node ${job.node}`);
    const ok = await migrate(flow, job.id, job.node, flow.failing("migrating VM"));
    if (!ok) return "silent";
    flow.emit(step, "success", `[+] VM migrated to node ${job.node} successfully (${seconds(flow.since())}s)`);
  }

  // qm start: reported under the previous step's name, or not at all on failure.
  flow.startStep();
  await flow.enter("starting VM");
  await flow.spend(d.qmStart);
  const startFault = flow.failing("starting VM");
  const started = exists();
  if (startFault || !started) return "silent";
  core.cancelStop(job.id);
  store.setPower(started, "running");
  flow.emit(step, "success", `[+] VM started successfully (${seconds(flow.since())}s)`);

  step = "VM initialization > waiting for ready";
  await flow.enter("waiting for ready");
  flow.emit(step, "success", "[*] VM strting");
  if (!(await waitForSsh(flow, job.id, d.bootToSsh, flow.failing("waiting for ready") !== undefined))) {
    flow.emit(step, "error", SSH_TIMEOUT);
    return "error";
  }

  flow.startStep();
  step = "VM initialization > SSH initialization";
  await flow.enter("SSH initialization");
  flow.emit(step, "processing", "[*] SSH initialization");
  const sshFault = flow.failing("SSH initialization");
  if (!sshFault && exists()?.status !== "running") {
    // The VM went away behind the server's back: ssh cannot connect.
    await flow.spend(d.qmStart);
    await cleanUp(flow, job);
    flow.emit(step, "error", "[-] failed to perform SSH initialization: exit status 255");
    return "error";
  }
  const lines = sshFault
    ? (sshFault.output?.map((text) => ({ text })) ?? initScriptFailureLines(job.os, job.version))
    : initScriptLines(job.os, job.version);
  await flow.output("SSH initialization", lines, sshFault ? d.sshInit / 2 : d.sshInit);
  if (sshFault) {
    await cleanUp(flow, job);
    flow.emit(step, "error", `[-] failed to perform SSH initialization: ${sshFault.detail ?? "exit status 1"}`);
    return "error";
  }
  flow.emit(step, "success", `[+] SSH initialization completed (${seconds(flow.since())}s)`);

  flow.startStep();
  step = "VM initialization > rebooting VM";
  await flow.enter("rebooting VM");
  await flow.spend(d.qmReboot);
  const rebootFault = flow.failing("rebooting VM");
  if (rebootFault || exists()?.status !== "running") return "silent";
  // qm reboot returns once the guest is off; Proxmox starts it again a moment later.
  core.reboots.begin(job.id);
  const rebootElapsed = flow.since();
  flow.emit(step, "processing", "[+] VM rebooting");
  await flow.enter("waiting after reboot");
  if (!(await waitForSsh(flow, job.id, rebootReadyMs(flow), flow.failing("waiting after reboot") !== undefined))) {
    flow.emit(step, "error", SSH_TIMEOUT);
    return "error";
  }

  step = "VM initialization > finalizing";
  await flow.enter("finalizing");
  // The server times "ready" from the qm reboot call only, not the SSH wait.
  flow.emit(step, "success", `[+] VM is ready (${seconds(rebootElapsed)}s)`);
  flow.emit(step, "success", `[+] VM installation completed in ${seconds(flow.elapsed)}s`);
  flow.emit(step, "success", `[*] VMID: ${job.id}`);
  flow.emit(step, "success", `[*] IP: ${job.ip.split("/")[0]}`);
  flow.emit(step, "success", `[*] User: ${job.user}`);
  return "completed";
}

/**
 * CheckAlive: SSH answers after `readyMs`, unless the wait is made to fail or
 * the VM is gone or stopped by then; the server then keeps polling until its
 * 60 tries are spent (sshTimeout in all).
 */
export async function waitForSsh(flow: Flow, vmid: number, readyMs: number, fail: boolean): Promise<boolean> {
  const timeout = flow.d.sshTimeout;
  if (fail) {
    await flow.spend(timeout);
    return false;
  }
  await flow.spend(readyMs);
  // A reboot's restart due at this very moment goes first (two equal timers).
  await flow.core.reboots.whenBack(vmid);
  const vm = flow.core.store.vms.get(vmid);
  if (vm?.status === "running") {
    flow.core.store.noteService(vm, "ready");
    return true;
  }
  await flow.spend(Math.max(0, timeout - readyMs));
  return false;
}

/**
 * SSH answers `rebootToSsh` after qm reboot returned, and never while the VM
 * is still in the reboot's stopped moment.
 */
export function rebootReadyMs(flow: Flow): number {
  return Math.max(flow.d.rebootToSsh, flow.d.rebootStopped);
}

/** clean(): qm stop --skiplock --timeout 1, sleep 5 s, qm destroy --purge --skiplock. */
async function cleanUp(flow: Flow, job: InstallJob): Promise<void> {
  const store = flow.core.store;
  const vm = store.vms.get(job.id);
  if (vm) {
    flow.core.cancelStop(job.id);
    store.setPower(vm, "stopped");
  }
  await flow.spend(flow.d.cleanup);
  store.removeVm(job.id);
  flow.core.log(`install cleaned up VM ${job.id}`);
}
