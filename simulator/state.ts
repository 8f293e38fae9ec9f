// The simulated cluster: VMs (what `pvesh get /cluster/resources` and the
// /etc/pve configs would show), the server's SSH key, its OS image cache and
// its .go_qemu_disabled file. Every change is persisted when a state file is set.
import type { ResolvedConfig } from "./config";
import { FILE_FORMAT, loadState, saveState, type StateFile, type StoredVm } from "./persist";
import type { PowerStatus, PowerTimeline, TimelineStatus } from "./power-timeline";
import { VmSeedSchema } from "./schemas";
import type { DisabledEntry, VmPatch, VmSeed } from "./schemas";

export const GIB = 1024 ** 3;
export const MIB = 1024 ** 2;

export type VmRecord = StoredVm;

/** What tests see of a VM: a copy, never the live record. */
export interface VmSnapshot {
  vmid: number;
  /** Real name: `<name>-<vmid>` or `<vmid>`. */
  name: string;
  /** The name given to install ("" when none). */
  requestedName: string;
  /** Proxmox tag ("" until `initializing configuration` has tagged it). */
  os: string;
  version: string;
  node: string;
  cpu: number;
  memoryMb: number;
  /** What list reports as memory_used, in MB. */
  memoryUsedMb: number;
  diskBytes: number;
  /** Whole GiB, truncated (as list reports it). */
  diskGb: number;
  running: boolean;
  status: "running" | "stopped";
  user: string;
  /** Without the /24. */
  ip: string;
  /** Listed in .go_qemu_disabled. */
  disabled: boolean;
  /** A graceful shutdown is under way (status still `running`). */
  shuttingDown: boolean;
}

export class Store {
  readonly vms = new Map<number, VmRecord>();
  readonly images = new Set<string>();
  sshKey: boolean;
  /** null: the .go_qemu_disabled file is missing. */
  disabled: DisabledEntry[] | null;

  /**
   * `initial` (a restart without a state file) wins over the file and the
   * seeds. `timeline` gets every power change, stamped with `simNow()`.
   */
  constructor(
    private readonly cfg: ResolvedConfig,
    initial: StateFile | undefined,
    private readonly timeline: PowerTimeline,
    private readonly simNow: () => number,
  ) {
    this.disabled = cfg.disabled === null ? null : [...cfg.disabled];
    const stored = initial ?? (cfg.stateFile ? loadState(cfg.stateFile) : null);
    if (stored) {
      for (const vm of stored.vms) this.vms.set(vm.vmid, { ...vm });
      for (const image of stored.images) this.images.add(image);
      this.sshKey = stored.sshKey || cfg.sshKey;
    } else {
      this.sshKey = cfg.sshKey;
      for (const image of cfg.imageCache) this.images.add(image);
      for (const seed of cfg.vms) this.addVm(seed, false);
    }
    this.persist();
  }

  persist(): void {
    if (this.cfg.stateFile) saveState(this.cfg.stateFile, this.toFile());
  }

  /** What a state file would hold now (a deep copy). */
  toFile(): StateFile {
    return {
      format: FILE_FORMAT,
      vms: [...this.vms.values()].sort((a, b) => a.vmid - b.vmid).map((vm) => ({ ...vm })),
      sshKey: this.sshKey,
      images: [...this.images].sort(),
    };
  }

  ipOf(vmid: number): string {
    return `${this.cfg.gateway.split(".").slice(0, 3).join(".")}.${vmid}`;
  }

  /**
   * The one way a VM's power state changes once it exists, so the timeline
   * sees every change. A VM already in that state records nothing (it is not
   * a change). Persists when it did change; answers whether it did.
   */
  setPower(vm: VmRecord, status: PowerStatus): boolean {
    if (!this.applyPower(vm, status)) return false;
    this.persist();
    return true;
  }

  /** A moment of the guest's service (its shutdown began, SSH answers again): recorded, nothing changes. */
  noteService(vm: VmRecord, status: "shutting-down" | "ready"): void {
    this.record(vm, status);
  }

  private applyPower(vm: VmRecord, status: PowerStatus): boolean {
    if (vm.status === status) return false;
    vm.status = status;
    this.record(vm, status);
    return true;
  }

  private record(vm: VmRecord, status: TimelineStatus): void {
    this.timeline.record({ vmid: vm.vmid, name: vm.name, status, simMs: this.simNow(), wallMs: Date.now() });
  }

  /** A new VM's first state is where it starts, not a change: nothing is recorded. */
  addVm(seed: VmSeed, persist = true): VmRecord {
    const s = VmSeedSchema.parse(seed);
    if (this.vms.has(s.vmid)) throw new Error(`VM ${s.vmid} already exists`);
    const node = s.node ?? this.cfg.mainNode;
    this.requireNode(node);
    const vm: VmRecord = {
      vmid: s.vmid,
      name: s.name ?? (s.requestedName ? `${s.requestedName}-${s.vmid}` : String(s.vmid)),
      requestedName: s.requestedName,
      os: s.os,
      version: s.version,
      node,
      cpu: s.cpu,
      memoryMb: s.memoryMb,
      memoryUsedMb: s.memoryUsedMb,
      diskBytes: Math.round(s.diskGb * GIB),
      status: s.running ? "running" : "stopped",
      user: s.user ?? defaultUser(s.os),
      ip: this.ipOf(s.vmid),
    };
    this.vms.set(vm.vmid, vm);
    if (persist) this.persist();
    return vm;
  }

  /** Any node name is accepted as long as the cluster has it. */
  requireNode(node: string): void {
    if (!this.cfg.nodes.some((n) => n.name === node)) {
      throw new Error(`unknown node "${node}" (nodes: ${this.cfg.nodes.map((n) => n.name).join(", ")})`);
    }
  }

  patchVm(vmid: number, patch: VmPatch): VmRecord {
    const vm = this.vms.get(vmid);
    if (!vm) throw new Error(`VM ${vmid} does not exist`);
    if (patch.node !== undefined) this.requireNode(patch.node);
    if (patch.name !== undefined) vm.name = patch.name;
    if (patch.os !== undefined) vm.os = patch.os;
    if (patch.version !== undefined) vm.version = patch.version;
    if (patch.node !== undefined) vm.node = patch.node;
    if (patch.cpu !== undefined) vm.cpu = patch.cpu;
    if (patch.memoryMb !== undefined) vm.memoryMb = patch.memoryMb;
    if (patch.diskGb !== undefined) vm.diskBytes = Math.round(patch.diskGb * GIB);
    if (patch.diskBytes !== undefined) vm.diskBytes = patch.diskBytes;
    // `status` wins over `running` when both are given; applied once, so a
    // patch that names both never records a change it did not make.
    const power = patch.status ?? (patch.running === undefined ? undefined : patch.running ? "running" : "stopped");
    if (power !== undefined) this.applyPower(vm, power);
    if (patch.user !== undefined) vm.user = patch.user;
    if (patch.memoryUsedMb !== undefined) vm.memoryUsedMb = patch.memoryUsedMb;
    this.persist();
    return vm;
  }

  /** A removal is not a power change: nothing is recorded. */
  removeVm(vmid: number): boolean {
    const had = this.vms.delete(vmid);
    if (had) this.persist();
    return had;
  }

  isDisabled(vmid: number): boolean {
    return this.disabled?.some((d) => d.vmid === vmid) ?? false;
  }

  /** Memory in use as list reports it: a quarter of the RAM while running, unless patched. */
  memoryUsedMb(vm: VmRecord): number {
    if (vm.memoryUsedMb !== null) return vm.memoryUsedMb;
    return vm.status === "running" ? Math.floor(vm.memoryMb / 4) : 0;
  }

  snapshot(vm: VmRecord, shuttingDown: boolean): VmSnapshot {
    return {
      vmid: vm.vmid,
      name: vm.name,
      requestedName: vm.requestedName,
      os: vm.os,
      version: vm.version,
      node: vm.node,
      cpu: vm.cpu,
      memoryMb: vm.memoryMb,
      memoryUsedMb: this.memoryUsedMb(vm),
      diskBytes: vm.diskBytes,
      diskGb: Math.trunc(vm.diskBytes / GIB),
      running: vm.status === "running",
      status: vm.status,
      user: vm.user,
      ip: vm.ip,
      disabled: this.isDisabled(vm.vmid),
      shuttingDown,
    };
  }
}

/** The cloud image's default user, as initConfig and GetOSUser name it. */
export function defaultUser(os: string): string {
  if (os === "rockylinux") return "rocky";
  if (os === "debian" || os === "ubuntu") return os;
  return "";
}
