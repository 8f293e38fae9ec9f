// What the go-pve-qemu server's code does, written down once (read from
// pardnchiu/go-pve-qemu at 607f444, its install service in internal/service:
// the install itself, VM creation, IP assignment, OS images and the SSH public
// key): the install's step names, the messages that carry facts, the one error
// the server recovers from, what each part of the install leaves behind when
// it fails, and how long each part can take.
// The stream reader, the fact tracker and the lifecycle's progress lines and
// decisions all import it from here.

// ---- step names ------------------------------------------------------------

export const STEP = {
  checkVmid: "preparation > checking VMID",
  sshKeyCheck: "SSH preparation > checking SSH key",
  sshKeyCreate: "SSH preparation > creating SSH key",
  creatingVm: "VM creation > creating VM",
  sshInit: "VM initialization > SSH initialization",
  rebooting: "VM initialization > rebooting VM",
  finalizing: "VM initialization > finalizing",
} as const;

export interface InstallStep {
  /** the server's step name */
  name: string;
  /** other step names that belong to the same step (alternatives, sub-steps, output) */
  aliases?: readonly string[];
  /** only present when the install was asked to place the VM on a node */
  onlyWithNode?: boolean;
}

/** The install's steps, in the server's order. */
export const INSTALL_STEPS: readonly InstallStep[] = [
  { name: STEP.checkVmid },
  { name: "preparation > assigning IP" },
  { name: "preparation > validating CPU and RAM" },
  { name: "preparation > validating disk size" },
  { name: "preparation > setting default config values" },
  { name: "preparation > checking storage pool" },
  { name: "OS preparation > getting OS image" },
  { name: "OS preparation > validating OS image URL" },
  { name: "OS preparation > downloading OS image", aliases: ["OS preparation > using OS image"] },
  { name: STEP.sshKeyCheck, aliases: [STEP.sshKeyCreate] },
  { name: STEP.creatingVm },
  { name: "VM creation > importing disk image" },
  { name: "VM initialization > initializing configuration" },
  { name: "VM initialization > migrating VM", aliases: ["migrating"], onlyWithNode: true },
  { name: "VM initialization > waiting for ready" },
  { name: STEP.sshInit, aliases: ["SSH initialization"] },
  { name: STEP.rebooting },
  { name: STEP.finalizing },
];

// ---- messages ----------------------------------------------------------------

/** The completion mark's first line (then `[*] VMID:`, `[*] IP:`, `[*] User:`). */
export const COMPLETED_MESSAGE = "[+] VM installation completed";

/** The error the server recovers from: no SSH key pair yet, so it creates one and carries on. */
export const SSH_KEY_MISSING = "failed to find user SSH public key";

export function isRecoverableSshKeyError(step: string | undefined, message: string | undefined): boolean {
  return step === STEP.sshKeyCheck && (message ?? "").includes(SSH_KEY_MISSING);
}

/**
 * Named error frames, which go-pve-qemu itself never sends but a proxy or
 * another SSE service in front of it may. They mean two different things
 * (the seeds' protocols): `event: error` ends a FAILED operation ("the stream
 * closes after a complete or error frame"), a definite failure like a step's
 * error; `sse_error` reports that the STREAM failed while the operation goes
 * on, which says nothing about the operation's outcome.
 */
export const OPERATION_ERROR_FRAMES: ReadonlySet<string> = new Set(["error"]);
export const STREAM_ERROR_FRAMES: ReadonlySet<string> = new Set(["sse_error"]);

// ---- phases, and what a failure in each leaves ---------------------------------

/**
 * What the server does, in order. Not the same as the step names: `qm start`
 * and `qm reboot` have no step of their own, and a step's success can mean
 * the next phase began. After each phase, what a failure in it leaves:
 * - nothing-made: no VM exists yet (a failure leaves nothing);
 * - cleans-up: a failure here stops and destroys the half-made VM (`clean()`:
 *   qm stop, 5 s sleep, qm destroy), THEN sends the error event;
 * - leaves-vm: a failure here returns without clean-up: the VM stays.
 * After `sshInit` succeeds nothing removes the VM: that is the point of no return.
 */
export const PHASES = [
  "checkVmid", // nothing-made
  "prepare", // nothing-made
  "imageUrl", // nothing-made
  "download", // nothing-made
  "sshKey", // nothing-made
  "createVm", // nothing-made
  "importDisk", // cleans-up
  "initConfig", // cleans-up
  "migrate", // leaves-vm
  "qmStart", // leaves-vm
  "waitReady", // leaves-vm
  "sshInit", // cleans-up
  "qmReboot", // leaves-vm
  "waitAfterReboot", // leaves-vm
  "finalize", // leaves-vm
] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Phases with no step name of their own: a failure there closes the stream
 * silently, and the stream names the step before (`SSH initialization` for a
 * failed `qm reboot`).
 */
export const UNNAMED_PHASE: Partial<Record<Phase, string>> = {
  qmStart: "starting the VM (qm start)",
  qmReboot: "rebooting the VM (qm reboot)",
};

export function phaseIndex(p: Phase): number {
  return PHASES.indexOf(p);
}

/** The phase of a step name, before looking at the message. */
const STEP_PHASE: Record<string, Phase> = {
  [STEP.checkVmid]: "checkVmid",
  "preparation > assigning IP": "prepare",
  "preparation > validating CPU and RAM": "prepare",
  "preparation > validating disk size": "prepare",
  "preparation > setting default config values": "prepare",
  "preparation > checking storage pool": "prepare",
  "OS preparation > getting OS image": "imageUrl",
  "OS preparation > validating OS image URL": "imageUrl",
  "OS preparation > downloading OS image": "download",
  "OS preparation > using OS image": "sshKey", // cached: no download
  [STEP.sshKeyCheck]: "sshKey",
  [STEP.sshKeyCreate]: "sshKey",
  [STEP.creatingVm]: "createVm",
  "VM creation > importing disk image": "importDisk",
  "VM initialization > initializing configuration": "initConfig",
  "VM initialization > migrating VM": "migrate",
  migrating: "migrate",
  "VM initialization > waiting for ready": "waitReady",
  [STEP.sshInit]: "sshInit",
  "SSH initialization": "sshInit",
  // the step is first named after `qm reboot` returned: the wait after it has begun
  [STEP.rebooting]: "waitAfterReboot",
  [STEP.finalizing]: "finalize",
};

/** Success messages that mean the next phase has begun. */
const NEXT_PHASE: Array<[prefix: string, phase: Phase]> = [
  ["[+] completed OS image download", "sshKey"],
  ["[+] VM created successfully", "importDisk"],
  ["[+] disk image imported successfully", "initConfig"],
  ["[+] VM initialized successfully", "migrate"], // skipped below when no node was asked for
  ["[+] VM migrated to node", "qmStart"],
  ["[+] VM started successfully", "waitReady"],
  ["[+] SSH initialization completed", "qmReboot"],
];

/** Where the server is, at least, once it sent this event. */
export function phaseOfEvent(step: string, status: string, message: string, withNode: boolean): Phase | undefined {
  if (status === "success") {
    for (const [prefix, phase] of NEXT_PHASE) {
      if (message.startsWith(prefix)) return phase === "migrate" && !withNode ? "qmStart" : phase;
    }
  }
  return STEP_PHASE[step];
}

// ---- how long each phase can take ------------------------------------------------

/** Bounds the server's code does not set (it waits without a timeout): configurable. */
export interface OpenBounds {
  /** `http.Get` of the OS image with no timeout */
  imageDownloadMs: number;
  /** `ssh ... curl <init script> | sudo bash` with no timeout */
  initScriptMs: number;
  /** `qm migrate --with-local-disks` with no timeout */
  migrateMs: number;
  /** one `qm`/`pvesh`/`pvesm`/`ssh-keygen` command (none has a timeout) */
  commandMs: number;
  /** one wait for the VM's SSH (CheckAlive); SSH_WAIT_MS on the real server, shorter on a faster simulator */
  sshWaitMs: number;
}

/** CheckAlive: 60 tries of `ssh -o ConnectTimeout=5`, each followed by a 5 s sleep. */
const SSH_WAIT_MS = 60 * (5_000 + 5_000);

export const DEFAULT_OPEN_BOUNDS: OpenBounds = {
  imageDownloadMs: 30 * 60_000,
  initScriptMs: 20 * 60_000,
  migrateMs: 30 * 60_000,
  commandMs: 30_000,
  sshWaitMs: SSH_WAIT_MS,
};

/** The longest each phase can take. */
export function phaseBounds(b: OpenBounds): Record<Phase, number> {
  return {
    checkVmid: 10_000, // assignIP gives up after 10 s
    prepare: 2 * b.commandMs, // initConfig, pvesm status
    imageUrl: 15_000, // HEAD with a 15 s context timeout
    download: b.imageDownloadMs,
    sshKey: b.commandMs, // ssh-keygen
    createVm: 2 * b.commandMs, // pvesh (CPU type), qm create
    importDisk: 20 * b.commandMs, // qm importdisk copies the whole image into the storage
    initConfig: 12 * b.commandMs + 10_000, // 11 qm set, qm resize with up to 2 x 5 s retry sleeps
    migrate: b.migrateMs,
    qmStart: b.commandMs,
    waitReady: b.sshWaitMs,
    sshInit: b.initScriptMs,
    qmReboot: 4 * b.commandMs, // qm reboot waits for the guest's shutdown
    waitAfterReboot: b.sshWaitMs,
    finalize: 0,
  };
}

/** clean(): qm stop --timeout 1, sleep 5 s, qm destroy --purge. */
export function cleanupBound(b: OpenBounds): number {
  return 5_000 + 2 * b.commandMs;
}
