// What tests may do to the simulator "behind the provider's back": look at the
// VMs, change or remove them (drift), add VMs created elsewhere, set faults,
// change run-time settings. One implementation serves both the programmatic
// handle and the /_sim admin endpoints.
import type { SimCore, SimulatorStats } from "./core";
import type { InstallRecord } from "./install-log";
import { describeZodError, SettingsSchema, VmPatchSchema, VmSeedSchema } from "./schemas";
import type { DisabledEntry, Settings, VmPatch, VmSeed } from "./schemas";
import type { FaultRule } from "./fault-rules";
import type { PowerChange } from "./power-timeline";
import type { VmSnapshot } from "./state";

export interface SimulatorState {
  vms: VmSnapshot[];
  /** null: the .go_qemu_disabled file is missing. */
  disabled: DisabledEntry[] | null;
  sshKey: boolean;
  images: string[];
  allowIps: string;
  faults: FaultRule[];
  stats: SimulatorStats;
  /** Every install flow since the simulator started (restarts included). */
  installs: InstallRecord[];
  /** Every power change since the simulator started (restarts included), oldest first. */
  powerTimeline: PowerChange[];
}

export class Controls {
  constructor(private readonly core: SimCore) {}

  vms(): readonly VmSnapshot[] {
    return [...this.core.store.vms.values()]
      .sort((a, b) => a.vmid - b.vmid)
      .map((vm) => this.core.store.snapshot(vm, this.core.shutdowns.has(vm.vmid)));
  }

  vm(vmid: number): VmSnapshot | undefined {
    return this.vms().find((v) => v.vmid === vmid);
  }

  addFault(rule: FaultRule): string {
    return this.core.faults.add(rule);
  }

  removeFault(id: string): boolean {
    return this.core.faults.remove(id);
  }

  clearFaults(): number {
    return this.core.faults.clear();
  }

  faults(): FaultRule[] {
    return this.core.faults.list();
  }

  mutateVm(vmid: number, patch: VmPatch): VmSnapshot {
    const parsed = VmPatchSchema.safeParse(patch);
    if (!parsed.success) throw describeZodError("invalid VM patch", parsed.error);
    const vm = this.core.store.patchVm(vmid, parsed.data);
    if (vm.status === "stopped") this.core.cancelStop(vmid);
    // Power set by hand wins over a reboot's pending restart.
    if (parsed.data.running !== undefined || parsed.data.status !== undefined) this.core.reboots.cancel(vmid);
    return this.core.store.snapshot(vm, this.core.shutdowns.has(vmid));
  }

  addVm(seed: VmSeed): VmSnapshot {
    const parsed = VmSeedSchema.safeParse(seed);
    if (!parsed.success) throw describeZodError("invalid VM", parsed.error);
    const vm = this.core.store.addVm(seed);
    return this.core.store.snapshot(vm, false);
  }

  removeVm(vmid: number): boolean {
    this.core.cancelStop(vmid);
    return this.core.store.removeVm(vmid);
  }

  settings(settings: Settings): void {
    const parsed = SettingsSchema.safeParse(settings);
    if (!parsed.success) throw describeZodError("invalid settings", parsed.error);
    const s = parsed.data;
    const core = this.core;
    if (s.allowIps !== undefined) core.allowIps = s.allowIps;
    if (s.disabled !== undefined) core.store.disabled = s.disabled === null ? null : [...s.disabled];
    if (s.storages !== undefined) core.storages = { ...s.storages };
    if (s.ipsInUse !== undefined) core.ipsInUse = [...s.ipsInUse];
    if (s.speed !== undefined) core.clock.setSpeed(s.speed);
    if (s.guestShutdownMs !== undefined) core.cfg.durations.shutdownGrace = s.guestShutdownMs;
    if (s.vmidPick !== undefined) core.cfg.vmidPick = s.vmidPick;
    if (s.measuredRates !== undefined) core.rates = s.measuredRates ? (core.rates ?? core.newRates()) : null;
    if (s.sshKey !== undefined) core.store.sshKey = s.sshKey;
    if (s.imageCache !== undefined) {
      core.store.images.clear();
      for (const image of s.imageCache) core.store.images.add(image);
    }
    core.store.persist();
  }

  stats(): SimulatorStats {
    const s = this.core.stats;
    return { ...s, requests: { ...s.requests } };
  }

  installs(): InstallRecord[] {
    return this.core.installs.list();
  }

  /** A copy: what a test holds does not change under it. */
  powerTimeline(): PowerChange[] {
    return this.core.timeline.list();
  }

  state(): SimulatorState {
    const store = this.core.store;
    return {
      vms: [...this.vms()],
      disabled: store.disabled === null ? null : [...store.disabled],
      sshKey: store.sshKey,
      images: [...store.images].sort(),
      allowIps: this.core.allowIps,
      faults: this.faults(),
      stats: this.stats(),
      installs: this.installs(),
      powerTimeline: this.powerTimeline(),
    };
  }

  idle(): Promise<void> {
    return this.core.idle();
  }
}
