// A faithful simulator of the go-pve-qemu server (pardnchiu/go-pve-qemu): the
// same 13 endpoints under /api, the same bytes on the wire (SSE included, with
// its quirks), the same refusals, and every failure shape of the wire doc on
// demand. See simulator/README.md.
import { resolveConfig, type ResolvedConfig } from "./config";
import { Controls, type SimulatorState } from "./controls";
import { SimCore, type SimulatorStats } from "./core";
import { listen } from "./server";
import type { FaultRule, Settings, SimulatorOptions, VmPatch, VmSeed, DisabledEntry } from "./schemas";
import type { VmSnapshot } from "./state";

export interface SimulatorHandle {
  /** `http://127.0.0.1:PORT` (no /api). */
  readonly url: string;
  readonly port: number;
  /** The configuration in force (defaults filled in). */
  readonly config: Readonly<ResolvedConfig>;
  /** Stops every flow, cuts every connection, stops listening. */
  close(): Promise<void>;
  /** All VMs that exist on the simulated cluster, by VMID. */
  vms(): readonly VmSnapshot[];
  vm(vmid: number): VmSnapshot | undefined;
  /** Adds a fault rule (validated); returns its id. */
  addFault(rule: FaultRule): string;
  removeFault(id: string): boolean;
  /** Removes every rule; returns how many there were. */
  clearFaults(): number;
  faults(): FaultRule[];
  /** Changes a VM behind the provider's back (drift). Throws when it does not exist. */
  mutateVm(vmid: number, patch: VmPatch): VmSnapshot;
  /** Creates a VM behind the provider's back. */
  addVm(seed: VmSeed): VmSnapshot;
  /** Removes a VM behind the provider's back; false when it did not exist. */
  removeVm(vmid: number): boolean;
  /** ALLOW_IPS, .go_qemu_disabled (null = missing), SSH key, image cache, storages, speed... */
  settings(settings: Settings): void;
  stats(): SimulatorStats;
  state(): SimulatorState;
  /** Resolves once no server-side work is left (a dropped install has ended, a shutdown has stopped). */
  idle(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const cfg = resolveConfig(options);
  const core = new SimCore(cfg);
  const controls = new Controls(core);
  const listening = await listen(core, controls);
  let closing: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${listening.port}`,
    port: listening.port,
    config: cfg,
    close: () => (closing ??= listening.stop()),
    vms: () => controls.vms(),
    vm: (vmid) => controls.vm(vmid),
    addFault: (rule) => controls.addFault(rule),
    removeFault: (id) => controls.removeFault(id),
    clearFaults: () => controls.clearFaults(),
    faults: () => controls.faults(),
    mutateVm: (vmid, patch) => controls.mutateVm(vmid, patch),
    addVm: (seed) => controls.addVm(seed),
    removeVm: (vmid) => controls.removeVm(vmid),
    settings: (s) => controls.settings(s),
    stats: () => controls.stats(),
    state: () => controls.state(),
    idle: () => controls.idle(),
  };
}

export type { ResolvedConfig } from "./config";
export type { SimulatorState } from "./controls";
export type { SimulatorStats } from "./core";
export type { VmSnapshot } from "./state";
export type { FaultRule, Settings, SimulatorOptions, VmPatch, VmSeed, DisabledEntry };
export {
  DURATION_DEFAULTS,
  FaultRuleSchema,
  SettingsSchema,
  SimulatorConfigSchema,
  STEPS,
  OPS,
  VmPatchSchema,
  VmSeedSchema,
  DisabledEntrySchema,
  NodeSpecSchema,
  type DurationKey,
  type Op,
  type SimulatorConfig,
  type NodeSpec,
} from "./schemas";
export { frame, bareFrame, CLOSE_FRAME } from "./sse";
