// A faithful simulator of the go-pve-qemu server (pardnchiu/go-pve-qemu): the
// same 13 endpoints under /api, the same bytes on the wire (SSE included, with
// its quirks), the same refusals, and every failure shape of the wire doc on
// demand. See simulator/README.md.
import { resolveConfig, type ResolvedConfig } from "./config";
import { Controls, type SimulatorState } from "./controls";
import { SimCore, type SimulatorStats } from "./core";
import { listen } from "./server";
import type { FaultRule } from "./fault-rules";
import type { Settings, SimulatorOptions, VmPatch, VmSeed, DisabledEntry } from "./schemas";
import type { VmSnapshot } from "./state";
import type { InstallRecord } from "./install-log";
import type { PowerChange } from "./power-timeline";

export interface SimulatorHandle {
  /** `http://127.0.0.1:PORT` (no /api). */
  readonly url: string;
  readonly port: number;
  /** The configuration in force (defaults filled in). */
  readonly config: Readonly<ResolvedConfig>;
  /** Stops every flow, cuts every connection, stops listening. */
  close(): Promise<void>;
  /**
   * The server process dies and comes back on the same port: in-flight work
   * (installs, waiting shutdowns, open streams) ends where it was, without
   * clean-up; what it had done stays (a half-made VM stays half-made). The
   * cluster (VMs, SSH key, images, .go_qemu_disabled), the fault rules and
   * the speed carry over; counters start again. `downMs`: real ms between
   * the death and the new process listening, during which connections are
   * refused (a real process takes a while to come back; 0 by default).
   */
  restart(opts?: { downMs?: number }): Promise<void>;
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
  /**
   * One record per install flow, in start order, by the real clock: when the
   * server began and finished it and how it ended. Kept across restarts (a
   * restart is what cuts one short).
   */
  installs(): InstallRecord[];
  /**
   * Every change of a VM's power state (running <-> stopped), oldest first:
   * `{vmid, name, status, simMs, wallMs}`, `status` being the new state. A
   * VM's first state (a seed, addVm, an install's qm create) and its removal
   * are not changes. Kept across restarts; the newest 10,000. See
   * mostStoppedAtOnce.
   */
  powerTimeline(): PowerChange[];
  state(): SimulatorState;
  /** Resolves once no server-side work is left (a dropped install has ended, a shutdown has stopped). */
  idle(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const cfg = resolveConfig(options);
  let core = new SimCore(cfg);
  let controls = new Controls(core);
  let listening = await listen(core, controls);
  const port = listening.port;
  let closing: Promise<void> | null = null;
  let restarting: Promise<void> | null = null;

  const restart = async (downMs = 0): Promise<void> => {
    if (closing) throw new Error("the simulator is closed");
    await listening.stop();
    const cluster = core.store.toFile();
    const disabled = core.store.disabled;
    const faults = core.faults.list();
    const speed = core.clock.currentSpeed;
    const clock = core.clock;
    // With a state file the new process reads it, as the real server reads its disk.
    core = new SimCore(cfg, cfg.stateFile ? undefined : cluster, core.installs, core.timeline);
    // Simulated time goes on where it was, so the timeline stays in order.
    core.clock.continueFrom(clock);
    core.store.disabled = disabled === null ? null : [...disabled];
    core.faults.clear();
    for (const rule of faults) core.faults.add(rule);
    core.clock.setSpeed(speed);
    controls = new Controls(core);
    if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
    listening = await listen(core, controls, port);
  };

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    config: cfg,
    close: () =>
      (closing ??= (async () => {
        await restarting?.catch(() => undefined);
        await listening.stop();
      })()),
    restart: (opts) => {
      const next = (restarting ?? Promise.resolve()).catch(() => undefined).then(() => restart(opts?.downMs));
      restarting = next;
      return next;
    },
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
    installs: () => controls.installs(),
    powerTimeline: () => controls.powerTimeline(),
    state: () => controls.state(),
    idle: () => controls.idle(),
  };
}

export type { ResolvedConfig } from "./config";
export type { SimulatorState } from "./controls";
export type { SimulatorStats } from "./core";
export type { VmSnapshot } from "./state";
export type { InstallRecord } from "./install-log";
export type { PowerChange, PowerStatus, StoppedPeak, TimelineStatus } from "./power-timeline";
export { mostDownAtOnce, mostStoppedAtOnce, POWER_TIMELINE_LIMIT } from "./power-timeline";
export type { FaultRule, Settings, SimulatorOptions, VmPatch, VmSeed, DisabledEntry };
export {
  DURATION_DEFAULTS,
  SettingsSchema,
  SimulatorConfigSchema,
  VmPatchSchema,
  VmSeedSchema,
  DisabledEntrySchema,
  NodeSpecSchema,
  type DurationKey,
  type SimulatorConfig,
  type NodeSpec,
} from "./schemas";
export {
  FAULT_KINDS,
  FRAME_FLOW,
  FRAME_THEN,
  GARBLE_VARIANTS,
  FaultRuleSchema,
  STEPS,
  OPS,
  type Op,
  type GarbleVariant,
} from "./fault-rules";
export { MIGRATION_RATES, INIT_SCRIPT_RATES } from "./rates";
export { frame, bareFrame, CLOSE_FRAME } from "./sse";
