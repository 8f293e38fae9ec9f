// Every shape the simulator accepts from outside (options, config file, CLI
// flags, admin endpoint bodies, fault rules, VM patches) as a zod schema, so
// a typo in a test or a config file fails loudly instead of being ignored.
import { z } from "zod";
import { FaultRuleSchema } from "./fault-rules";

/** Simulated durations in milliseconds, before division by `speed`. */
export const DURATION_DEFAULTS = {
  checkVmidAuto: 20,
  checkVmidPinned: 0,
  assignIp: 0,
  validateCpuRam: 0,
  validateDisk: 0,
  defaultConfig: 0,
  storagePool: 120,
  getOsImage: 0,
  validateImageUrl: 450,
  downloadImage: 42_000,
  useImage: 0,
  sshKeyCheck: 0,
  sshKeyCreate: 60,
  createVm: 1_200,
  importDisk: 8_400,
  initConfig: 3_100,
  migrate: 12_000,
  migrateRefused: 900,
  qmStart: 850,
  bootToSsh: 35_000,
  sshInit: 95_000,
  qmReboot: 4_100,
  /**
   * qm reboot returns once the guest is off; Proxmox then starts the VM again.
   * This long after qm reboot returns the VM reads stopped (0: never).
   */
  rebootStopped: 1_500,
  rebootToSsh: 30_000,
  sshTimeout: 600_000,
  cleanup: 6_500,
  finalizePause: 5_000,
  qmStop: 600,
  qmShutdown: 500,
  /** `qm shutdown` waits this long for the guest to power off (guestShutdownMs). */
  shutdownGrace: 8_000,
  qmDestroy: 1_500,
  qmSet: 300,
  qmResize: 1_200,
  qmStatus: 100,
  pveshList: 300,
} as const;
export type DurationKey = keyof typeof DURATION_DEFAULTS;
export type Durations = Record<DurationKey, number>;

const DurationsSchema = z.strictObject(
  Object.fromEntries(Object.keys(DURATION_DEFAULTS).map((k) => [k, z.number().nonnegative().optional()])) as Record<
    DurationKey,
    z.ZodOptional<z.ZodNumber>
  >,
);

export const NodeSpecSchema = z.strictObject({
  name: z.string().regex(/^[\w-]+$/),
  ip: z.string().optional(),
  maxCpu: z.number().int().positive().default(32),
  maxMemoryMb: z.number().int().positive().default(131_072),
  diskGb: z.number().nonnegative().default(100),
  online: z.boolean().default(true),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;

export const DisabledEntrySchema = z.strictObject({ vmid: z.number().int(), name: z.string() });
export type DisabledEntry = z.infer<typeof DisabledEntrySchema>;

/** A VM that exists on the cluster, created outside of install (or loaded). */
export const VmSeedSchema = z.strictObject({
  vmid: z.number().int().min(100).max(999_999_999),
  name: z.string().optional(),
  requestedName: z.string().default(""),
  /** The VM's Proxmox tag; "" for a VM without one. */
  os: z.string().default("ubuntu"),
  version: z.string().default("24.04"),
  node: z.string().optional(),
  cpu: z.number().int().positive().default(2),
  memoryMb: z.number().int().positive().default(2048),
  diskGb: z.number().nonnegative().default(16),
  running: z.boolean().default(false),
  user: z.string().optional(),
  memoryUsedMb: z.number().nonnegative().nullable().default(null),
});
export type VmSeed = z.input<typeof VmSeedSchema>;

/** Changes made "behind the provider's back" (drift). */
export const VmPatchSchema = z.strictObject({
  name: z.string().optional(),
  os: z.string().optional(),
  version: z.string().optional(),
  node: z.string().optional(),
  cpu: z.number().int().positive().optional(),
  memoryMb: z.number().int().positive().optional(),
  diskGb: z.number().nonnegative().optional(),
  diskBytes: z.number().int().nonnegative().optional(),
  running: z.boolean().optional(),
  status: z.enum(["running", "stopped"]).optional(),
  user: z.string().optional(),
  memoryUsedMb: z.number().nonnegative().nullable().optional(),
});
export type VmPatch = z.infer<typeof VmPatchSchema>;

const ImageKeySchema = z.string().regex(/^(debian|ubuntu|rockylinux)\/[^/]+$/, 'expected "os/version"');

/** Everything that can be given as data: options, the --config file, admin settings. */
export const SimulatorConfigSchema = z.strictObject({
  /** 0 = an ephemeral port. The simulator only ever listens on 127.0.0.1. */
  port: z.number().int().min(0).max(65_535).default(0),
  /** Simulated time runs this many times faster than real time. */
  speed: z.number().positive().default(1),
  /** Every default duration 0 (benchmarks; messages then say (0.00s)); `durations` given still apply. */
  durationsZero: z.boolean().default(false),
  durations: DurationsSchema.default({}),
  /** JSON file holding VMs, SSH key and image cache across runs. */
  stateFile: z.string().optional(),
  /** Start with an SSH key pair (no recoverable error on the first install). */
  sshKey: z.boolean().default(false),
  gateway: z.string().default("192.168.0.1"),
  mainNode: z.string().default("pve1"),
  nodes: z
    .array(z.union([z.string(), NodeSpecSchema]))
    .min(1)
    .default(["pve1", "pve2"]),
  storage: z.string().default("local-zfs"),
  /** pvesm status: storage name -> active and usable. */
  storages: z.record(z.string(), z.boolean()).default({ "local-zfs": true, local: true }),
  assignIpStart: z.number().int().default(100),
  assignIpEnd: z.number().int().default(254),
  /** Last octets whose IP answers on port 22 (skipped by auto-assignment). */
  ipsInUse: z.array(z.number().int()).default([]),
  /** VM_MAX_CPU / VM_MAX_RAM (MB) / VM_MAX_DISK (GB); 0 = no limit. */
  maxCpu: z.number().int().min(0).default(32),
  maxRam: z.number().int().min(0).default(32_768),
  maxDisk: z.number().int().min(0).default(64),
  /** ALLOW_IPS, verbatim: "0.0.0.0" allows all, else a comma separated list. */
  allowIps: z.string().default("0.0.0.0"),
  /** Entries of .go_qemu_disabled; null = the file is missing. */
  disabled: z.array(DisabledEntrySchema).nullable().default([]),
  /** VMs present at start (ignored when the state file already exists). */
  vms: z.array(VmSeedSchema).default([]),
  /** Cached OS images at start, as "os/version" (ignored when the state file exists). */
  imageCache: z.array(ImageKeySchema).default([]),
  faults: z.array(FaultRuleSchema).default([]),
  /**
   * `qm status` only sees VMs of the main node (real Proxmox: a VM on another
   * node answers 500 `failed to get VM status: exit status 2`). On by default.
   */
  statusLocalOnly: z.boolean().default(true),
  /**
   * How long a guest takes to power off after `qm shutdown` (simulated ms;
   * the shutdown answers only then). Sets durations.shutdownGrace.
   */
  guestShutdownMs: z.number().nonnegative().optional(),
  /**
   * How auto VMIDs are picked: `probe` as the server does (candidates from
   * both ends of the range probed at once, the first free answer wins), or
   * `lowest` (the lowest free VMID, deterministic: two close installs collide).
   */
  vmidPick: z.enum(["probe", "lowest"]).default("probe"),
  /** Seed of every random choice (probe latencies, measured-rates corruption). */
  seed: z.number().int().default(1),
  /** Inject stream corruption at the rates measured on the real server (soak runs). */
  measuredRates: z.boolean().default(false),
  /**
   * The server validates cpu/ram before it applies its defaults, so an
   * omitted cpu becomes 1 and an omitted ram 512 (with notices). true applies
   * the documented defaults (cpu 2, ram 2048) first instead.
   */
  applyDefaultsFirst: z.boolean().default(false),
  /** Wall clock shown in `qm migrate` output lines (plus the flow's simulated time). */
  clockStart: z.iso.datetime().default("2025-01-01T00:00:00Z"),
  /** Print every request and fault to stderr. */
  log: z.boolean().default(false),
});
export type SimulatorConfig = z.output<typeof SimulatorConfigSchema>;

/** Options of startSimulator: the config, plus a log sink function if wanted. */
export type SimulatorOptions = Omit<z.input<typeof SimulatorConfigSchema>, "log"> & {
  log?: boolean | ((line: string) => void);
};

/** Run-time settings changeable through the handle or POST /_sim/settings. */
export const SettingsSchema = z.strictObject({
  allowIps: z.string().optional(),
  disabled: z.array(DisabledEntrySchema).nullable().optional(),
  sshKey: z.boolean().optional(),
  imageCache: z.array(ImageKeySchema).optional(),
  storages: z.record(z.string(), z.boolean()).optional(),
  ipsInUse: z.array(z.number().int()).optional(),
  speed: z.number().positive().optional(),
  /** The guest shutdown time from now on (simulated ms). */
  guestShutdownMs: z.number().nonnegative().optional(),
  /** Turn the measured-rates corruption on or off (seeded from the configured seed). */
  measuredRates: z.boolean().optional(),
  /** The auto VMID pick from now on (a test lines installs up on one VMID, then lets the server probe). */
  vmidPick: z.enum(["probe", "lowest"]).optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Human-readable zod failure, one issue a line, with its path. */
export function describeZodError(prefix: string, error: z.ZodError): Error {
  return new Error(`${prefix}:\n${z.prettifyError(error)}`);
}
