// The checks every per-VM handler runs before acting: ALLOW_IPS (CheckIP),
// the VMID parse (strconv.Atoi), and the power-state check against the VM
// list, which also refuses disabled VMs and fails when .go_qemu_disabled is
// missing (CheckID). Texts and statuses as the server's util package has them.
import type { SimCore } from "./core";
import { goAtoi } from "./gobind";

const MISSING_DISABLED_FILE = "open .go_qemu_disabled: no such file or directory";

/** CheckIP: "0.0.0.0" allows everyone, else the exact address must be listed. */
export function ipAllowed(core: SimCore, ip: string): boolean {
  return core.allowIps === "0.0.0.0" || core.allowIps.split(",").includes(ip);
}

/** strconv.Atoi of the :id path segment; null when it does not parse. */
export function parseVmid(raw: string): number | null {
  const r = goAtoi(raw);
  return r.ok ? r.value : null;
}

export interface Refusal {
  status: number;
  message: string;
}

/** One VM as GetVMMap sees it: disabled entries overlay real ones. */
function listedState(core: SimCore, vmid: number): { node: string; running: boolean } | null {
  if (core.store.isDisabled(vmid)) return { node: "-", running: true };
  const vm = core.store.vms.get(vmid);
  return vm ? { node: vm.node, running: vm.status === "running" } : null;
}

/**
 * CheckID(vmid, refuseRunning). refuseRunning=true: the VM must be stopped
 * (start, set/*, destroy); false: it must be running (stop, shutdown, reboot).
 * A VM that does not exist reads as not running.
 */
export function checkId(core: SimCore, vmid: number, refuseRunning: boolean): Refusal | null {
  if (core.store.disabled === null) return { status: 500, message: `failed to get VM list: ${MISSING_DISABLED_FILE}` };
  const listed = listedState(core, vmid);
  if (listed?.node === "-") return { status: 400, message: "this IP is not allowed to be controlled" };
  const running = listed?.running ?? false;
  if (running === refuseRunning) {
    return { status: 400, message: refuseRunning ? "VM is running" : "VM is not running" };
  }
  return null;
}

/** GetOSUser: the SSH user the server polls with, from the VM's OS tag. */
export function osUser(core: SimCore, vmid: number): { user: string } | { error: string } {
  if (core.store.disabled === null) return { error: MISSING_DISABLED_FILE };
  if (core.store.isDisabled(vmid)) return { error: "OS user not found" };
  const os = core.store.vms.get(vmid)?.os ?? "";
  if (os === "rockylinux") return { user: "rocky" };
  if (os === "debian" || os === "ubuntu") return { user: os };
  return { error: "OS user not found" };
}
