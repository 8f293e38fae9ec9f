// Every shape the simulator accepts from outside (options, config file, CLI
// flags, admin endpoint bodies, fault rules, VM patches) as a zod schema, so
// a typo in a test or a config file fails loudly instead of being ignored.
import { z } from "zod";

/** The 13 API operations, named after the go-pve-qemu handlers. */
export const OPS = [
  "health",
  "install",
  "list",
  "status",
  "start",
  "stop",
  "shutdown",
  "reboot",
  "destroy",
  "setCpu",
  "setMemory",
  "setDisk",
  "setNode",
] as const;
const OpSchema = z.enum(OPS);
export type Op = z.infer<typeof OpSchema>;

/**
 * Named points of each operation where a fault can strike. For the SSE
 * operations these follow the step names the server streams (the part after
 * `>`), plus `begin` (before the first event) and `close` (before
 * `event: close`). `starting VM` and `waiting after reboot` inside install
 * have no step name of their own on the wire; they are the `qm start` call
 * and the SSH wait that follows `[+] VM rebooting`.
 */
export const STEPS: Readonly<Record<Op, readonly string[]>> = {
  install: [
    "begin",
    "checking VMID",
    "assigning IP",
    "validating CPU and RAM",
    "validating disk size",
    "setting default config values",
    "checking storage pool",
    "getting OS image",
    "validating OS image URL",
    "downloading OS image",
    "using OS image",
    "checking SSH key",
    "creating SSH key",
    "creating VM",
    "importing disk image",
    "initializing configuration",
    "migrating VM",
    "starting VM",
    "waiting for ready",
    "SSH initialization",
    "rebooting VM",
    "waiting after reboot",
    "finalizing",
    "close",
  ],
  start: ["starting VM", "waiting for SSH", "finalizing", "close"],
  reboot: ["rebooting VM", "waiting for SSH", "finalizing", "close"],
  setNode: ["migrating", "close"],
  list: ["vm map", "node map"],
  health: ["health"],
  status: ["status"],
  stop: ["stop"],
  shutdown: ["shutdown"],
  destroy: ["destroy"],
  setCpu: ["setCpu"],
  setMemory: ["setMemory"],
  setDisk: ["setDisk"],
};

/** `VM creation > creating VM` and `creating VM` name the same step. */
export function normalizeStep(step: string): string {
  const at = step.lastIndexOf(" > ");
  return at === -1 ? step.trim() : step.slice(at + 3).trim();
}

/** The operations that answer with an event stream. */
const SSE_OPS: readonly Op[] = ["install", "start", "reboot", "setNode"];

export const FAULT_KINDS = [
  "fail",
  "drop",
  "stall",
  "http",
  "gateway",
  "hang",
  "delay",
  "error-frame",
  "garble",
  "cut",
  "late",
  "lose",
  "reorder",
] as const;

/**
 * The ways the real server's chunked framing breaks (see the recordings): the
 * tail of a frame with no chunk header (`fragment`), a frame written a second
 * time outside the framing (`duplicate`), a chunk that lacks the LF of its
 * closing CRLF and is followed by the frame again (`crlf`).
 */
export const GARBLE_VARIANTS = ["fragment", "duplicate", "crlf"] as const;
export type GarbleVariant = (typeof GARBLE_VARIANTS)[number];

/** What follows a named error frame: `event: close` and the end, the end alone, or the rest of the stream. */
export const FRAME_THEN = ["close", "end", "continue"] as const;
/** What the server-side operation does after a named error frame. */
export const FRAME_FLOW = ["stops", "continues"] as const;

/** Kinds answered in front of the server, before any step: their `step` does not matter. */
export const FRONT_KINDS: readonly string[] = ["http", "gateway", "hang"];

const oneLine = (what: string) => z.string().regex(/^[^\r\n]*$/, `${what} must be one line (no CR or LF)`);

export const FaultRuleSchema = z
  .strictObject({
    /** Given or generated; used to remove the rule. */
    id: z.string().min(1).optional(),
    /** Operation(s) the rule applies to; all when omitted. */
    op: z.union([OpSchema, z.array(OpSchema).min(1)]).optional(),
    /** Step (see STEPS); the operation's first step when omitted. */
    step: z.string().min(1).optional(),
    /** Only for this VMID (install: the assigned or requested VMID). */
    vmid: z.number().int().optional(),
    /** Only for this name: the install's requested name, or a VM's real or requested name. */
    name: z.string().optional(),
    /**
     * fail: the server-side action of the step fails, and the server answers
     *       exactly as its code does for that failure;
     * drop: the connection is destroyed when the step is reached, the
     *       server-side flow carries on unheard;
     * stall: nothing more is written, the connection stays open (silence
     *       longer than any step), the flow carries on unheard;
     * http: the request is answered at once with status/body/contentType and
     *       nothing is done (a proxy in front of the server, say);
     * gateway: the request reaches the server and runs there unheard; after
     *       `ms` the client gets status/body/contentType instead (a gateway
     *       that buffers whole responses, then times out or fails);
     * hang: the request is read and never answered, nothing is done; the
     *       connection stays open until the client leaves (a black hole);
     * delay: `ms` more simulated milliseconds of silence at the step;
     * error-frame: (SSE operations) `event: <event>` / `data: <body>` is
     *       written at the step, then `then`; the operation `flow`s on or
     *       stops there (the frames other SSE services and proxies send).
     *
     * Stream corruption, as the real server's concurrent writers produce it
     * (SSE operations; the flow always carries on server-side):
     * garble: the first frame written from the step on is followed by bytes
     *       outside the chunked framing (`variant`); fragment and duplicate
     *       then write nothing more and never end the response;
     * cut: half of that frame is written, then the socket is destroyed;
     * late: that frame is held back and written after `event: close`;
     * lose: `lines` frames from the step on are never written;
     * reorder: `lines` frames from the step on are held back and written
     *       after the frame that follows them (a later line jumps ahead).
     */
    kind: z.enum(FAULT_KINDS),
    /** fail: the underlying error text (what follows the server's own prefix). */
    detail: z.string().optional(),
    /** fail: output lines streamed before the failure (migration, SSH initialization). */
    output: z.array(z.string()).optional(),
    /** http: status code (default 502); gateway: (default 504). */
    status: z.number().int().min(100).max(599).optional(),
    /**
     * http: body (default empty); gateway: (default `{"message":"Endpoint
     * request timed out"}`); error-frame: the data line (default
     * `{"message":"operation failed"}`).
     */
    body: z.string().optional(),
    /** http: content type (default text/plain; charset=utf-8); gateway: (default application/json). */
    contentType: z.string().optional(),
    /**
     * Simulated milliseconds (scaled by speed like every duration). delay: the
     * silence; gateway: when the gateway answers (default 29000); fail on
     * shutdown: how much later than at once the failure is answered (a guest
     * that ignores the power button until qm's own timeout).
     */
    ms: z.number().nonnegative().optional(),
    /** error-frame: the frame's event name (default "error"). */
    event: oneLine("event").min(1).optional(),
    /** error-frame: what follows the frame (default close). */
    then: z.enum(FRAME_THEN).optional(),
    /** error-frame: the operation stops there (default for event "error") or carries on (default otherwise). */
    flow: z.enum(FRAME_FLOW).optional(),
    /** garble: how the framing breaks (default fragment). */
    variant: z.enum(GARBLE_VARIANTS).optional(),
    /** lose, reorder: how many frames (default 1). */
    lines: z.number().int().positive().optional(),
    /** garble, cut, late, lose, reorder: frames written untouched from the step on before it strikes. */
    skip: z.number().int().nonnegative().optional(),
    /** How many times the rule fires before it retires itself; forever when omitted. */
    times: z.number().int().positive().optional(),
  })
  .superRefine((rule, ctx) => {
    const ops: readonly Op[] = rule.op === undefined ? OPS : Array.isArray(rule.op) ? rule.op : [rule.op];
    const issue = (path: string, message: string): void => ctx.addIssue({ code: "custom", path: [path], message });
    if (rule.step !== undefined) {
      const step = normalizeStep(rule.step);
      if (!ops.some((op) => STEPS[op].includes(step))) {
        const known = [...new Set(ops.flatMap((op) => STEPS[op]))].join(", ");
        issue("step", `unknown step "${rule.step}"; known: ${known}`);
      }
    }
    if (rule.kind !== "error-frame") {
      for (const key of ["event", "then", "flow"] as const) {
        if (rule[key] !== undefined) issue(key, `"${key}" applies only to kind "error-frame"`);
      }
    } else {
      if (!ops.some((op) => SSE_OPS.includes(op))) {
        issue("op", `kind "error-frame" applies only to the SSE operations (${SSE_OPS.join(", ")})`);
      }
      if (rule.body !== undefined && /[\r\n]/.test(rule.body)) issue("body", "an error frame's body must be one line");
      if ((rule.then ?? "close") === "continue" && frameFlow(rule) === "stops") {
        issue("then", 'then "continue" needs flow "continues": a stopped operation has nothing left to stream');
      }
    }
    // ms means something only where something waits: reject it elsewhere rather than ignore it.
    const shutdownOnly = ops.length === 1 && ops[0] === "shutdown";
    if (rule.ms !== undefined && rule.kind !== "delay" && rule.kind !== "gateway") {
      if (rule.kind !== "fail" || !shutdownOnly) {
        issue("ms", '"ms" applies to kinds "delay" and "gateway", and to "fail" with op "shutdown"');
      }
    }
  });
export type FaultRule = z.infer<typeof FaultRuleSchema>;

/** An error frame's effect on the operation: `event: error` ends it, any other event lets it go on. */
export function frameFlow(rule: Pick<FaultRule, "event" | "flow">): (typeof FRAME_FLOW)[number] {
  return rule.flow ?? ((rule.event ?? "error") === "error" ? "stops" : "continues");
}

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
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Human-readable zod failure, one issue a line, with its path. */
export function describeZodError(prefix: string, error: z.ZodError): Error {
  return new Error(`${prefix}:\n${z.prettifyError(error)}`);
}
