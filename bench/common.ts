// What the benchmarks share: fresh stacks of the programs in bench/programs
// on the real engine (scripts/engine-env.ts, the same engine and backend kind
// as the demo and the end-to-end tests), timing, medians, and the AIM lines.
//
// Each stack gets its own local file backend and a copy of its program under
// bench/out/work/ (inside the repository, so that `go-pve-qemu-pulumi`
// resolves to this checkout's dist/ by package self-reference; bench/out/ is
// git-ignored). Nothing of a stack outlives dispose().
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  type EngineEvent,
  type PreviewResult,
  type RefreshResult,
  type Stack,
  type UpResult,
} from "@pulumi/pulumi/automation";
import { engineEnv, ensureEngine, ROOT } from "../scripts/engine-env";

export const QUICK = process.argv.includes("--quick");

const PROGRAMS = path.join(ROOT, "bench", "programs");
/**
 * Where a program is copied to run against a checkout's build: inside that
 * checkout, so that `go-pve-qemu-pulumi` resolves to its dist/ by package
 * self-reference (this one's, or a baseline's: engine-overhead --baseline).
 */
function workIn(checkout: string): string {
  return path.join(checkout, "bench", "out", "work");
}
const PASSPHRASE = "bench-passphrase";
const STACK = "bench";

let scratch: string | undefined;
let pulumiCommand: Promise<PulumiCommand> | undefined;

/** One temp folder per process (engine home + backends), removed at exit. */
function scratchDir(): string {
  if (!scratch) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-bench-"));
    const dir = scratch;
    process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

function command(): Promise<PulumiCommand> {
  pulumiCommand ??= PulumiCommand.get({ root: path.dirname(ensureEngine()), skipVersionCheck: true });
  return pulumiCommand;
}

interface OpOptions {
  parallel?: number;
  onEvent?: (e: EngineEvent) => void;
}

export interface BenchStack {
  stack: Stack;
  /** `pulumi up`, timed from the call to its return (CLI start, program, every step, final checkpoint). */
  up(opts?: OpOptions): Promise<{ ms: number; result: UpResult }>;
  /** `pulumi refresh` of the stack as it stands (no program run), timed the same way. */
  refresh(opts?: OpOptions): Promise<{ ms: number; result: RefreshResult }>;
  /** `pulumi preview` (runs the program, diffs every resource, writes nothing), timed the same way. */
  preview(opts?: OpOptions): Promise<{ ms: number; result: PreviewResult }>;
  /** The stack's state file (the checkpoint) in the file backend. */
  stateFile(): string;
  dispose(): Promise<void>;
}

/**
 * A fresh stack of bench/programs/<program>: new backend, new copy of the program, this config.
 * `extraEnv` goes to the CLI and so to every process it starts (language host, provider):
 * e.g. NODE_OPTIONS for a CPU profile.
 */
export async function newStack(
  program: "vms" | "noop" | "shaped",
  config: Record<string, string | number>,
  extraEnv: Record<string, string> = {},
  checkout: string = ROOT,
): Promise<BenchStack> {
  const base = scratchDir();
  const work = workIn(checkout);
  fs.mkdirSync(work, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(work, `${program}-`));
  fs.cpSync(path.join(PROGRAMS, program), workDir, { recursive: true });
  const backendDir = fs.mkdtempSync(path.join(base, "backend-"));
  const env = { ...engineEnv({ backendDir, homeDir: path.join(base, "home"), passphrase: PASSPHRASE }), ...extraEnv };
  // Another checkout's build: its resource plugin and its Node.js come first on PATH.
  if (checkout !== ROOT)
    env.PATH = [path.join(checkout, "bin"), path.join(checkout, "node_modules", ".bin"), env.PATH].join(path.delimiter);
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: STACK, workDir },
    { envVars: env, pulumiCommand: await command() },
  );
  await stack.setAllConfig(Object.fromEntries(Object.entries(config).map(([k, v]) => [k, { value: String(v) }])));
  const project = `bench-${program}`;
  const timed = async <R>(run: () => Promise<R>): Promise<{ ms: number; result: R }> => {
    const t0 = performance.now();
    const result = await run();
    return { ms: performance.now() - t0, result };
  };
  return {
    stack,
    up: async (opts = {}) => {
      const r = await timed(() => stack.up({ parallel: opts.parallel, onEvent: opts.onEvent }));
      if (r.result.summary.result !== "succeeded")
        throw new Error(`pulumi up of ${program}: ${r.result.summary.result}`);
      return r;
    },
    refresh: async (opts = {}) => {
      const r = await timed(() => stack.refresh({ parallel: opts.parallel, onEvent: opts.onEvent }));
      if (r.result.summary.result !== "succeeded")
        throw new Error(`pulumi refresh of ${program}: ${r.result.summary.result}`);
      return r;
    },
    preview: async (opts = {}) => timed(() => stack.preview({ parallel: opts.parallel, onEvent: opts.onEvent })),
    stateFile: () => path.join(backendDir, ".pulumi", "stacks", project, `${STACK}.json`),
    dispose: async () => {
      fs.rmSync(backendDir, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** The two ways in a program's Vms can go through: the dynamic provider, or the resource plugin. */
export type WayIn = "dynamic" | "plugin";
export const WAYS_IN: readonly WayIn[] = ["dynamic", "plugin"];
/** Each way in's Vm type in state. */
export const VM_TYPES: Record<WayIn, string> = {
  dynamic: "pulumi-nodejs:dynamic/goPveQemu:Vm",
  plugin: "gopveqemu:index:Vm",
};

/** Config of bench/programs/vms on a way in: the endpoint under the way in's namespace, and the way in itself. */
export function vmsConfig(via: WayIn, endpoint: string, more: Record<string, string | number> = {}) {
  return via === "plugin"
    ? { ...more, via: "plugin", "gopveqemu:endpoint": endpoint }
    : { ...more, "goPveQemu:endpoint": endpoint };
}

/** What bench/programs/shaped reads from BENCH_VM_STATE: one Vm's state, secrets in plaintext. */
export interface VmStateTemplate {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  secretOutputs: string[];
}

/** Pulumi's marker of a secret in an exported deployment (its `plaintext` with --show-secrets). */
const SECRET_SIG = { key: "4dabf18193072939515e22adb298388d", value: "1b47061264138c4ac30d75fd1eb44270" };

/**
 * The state one Vm holds, from a real `pulumi up` of one VM against `endpoint`:
 * its inputs and outputs without the serialized provider (each program has
 * its own), secrets decrypted (the export shows them), and which outputs are
 * secrets.
 */
export async function vmStateTemplate(endpoint: string): Promise<VmStateTemplate> {
  const s = await newStack("vms", { count: 1, "goPveQemu:endpoint": endpoint });
  try {
    await s.up();
    const deployment = (await s.stack.exportStack()).deployment as {
      resources?: { type: string; inputs?: Bag; outputs?: Bag; additionalSecretOutputs?: string[] }[];
    };
    const vm = deployment.resources?.find((r) => r.type.endsWith(":Vm"));
    if (!vm?.inputs || !vm.outputs) throw new Error("the state of a Vm: no Vm resource in the exported stack");
    return {
      inputs: plain(vm.inputs),
      outputs: plain(vm.outputs),
      secretOutputs: vm.additionalSecretOutputs ?? [],
    };
  } finally {
    await s.dispose();
  }
}

type Bag = Record<string, unknown>;

function plain(bag: Bag): Bag {
  const out: Bag = {};
  for (const [k, v] of Object.entries(bag)) {
    if (k === "__provider") continue;
    const secret = typeof v === "object" && v !== null ? (v as Bag) : undefined;
    const isSecret = secret?.[SECRET_SIG.key] === SECRET_SIG.value && typeof secret.plaintext === "string";
    out[k] = isSecret ? JSON.parse(secret.plaintext as string) : v;
  }
  return out;
}

/** Removes program copies a crashed run left behind (tsc would compile them into dist/). */
export function cleanWork(checkout: string = ROOT): void {
  fs.rmSync(workIn(checkout), { recursive: true, force: true });
}

/**
 * CPU time so far of this process and of every finished process it waited for
 * (with theirs): `pulumi` and what it started (language host, program,
 * provider), the simulator and the Automation API's event reading. On a
 * shared machine this moves far less than wall time when other work competes.
 * Linux only (/proc); clock ticks of 10 ms.
 */
export function cpuMs(): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  // After "pid (comm) ": state is field 3; utime, stime, cutime, cstime are fields 14-17.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
export const msStr = (ms: number): string => `${ms.toFixed(0)} ms`;
/** "4.21 s  [4.10 4.21 4.90]": the median, then every repetition in run order. */
export const spread = (xs: readonly number[]): string =>
  `${secs(median(xs))}  [${xs.map((x) => (x / 1000).toFixed(2)).join(" ")}]`;

/** One summary line: `AIM <name>: measured <value> aim <bound> met|missed`. */
export function aim(name: string, measured: number, op: "<=" | ">=" | "==", bound: number, digits = 2): string {
  const ok = op === "<=" ? measured <= bound : op === ">=" ? measured >= bound : measured === bound;
  const line = `AIM ${name}: measured ${measured.toFixed(digits)} aim ${op}${bound.toFixed(digits)} ${ok ? "met" : "missed"}`;
  console.log(line);
  return line;
}

/** Runs a benchmark's main: errors are crashes (exit 1); slowness never is. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(`CRASHED: ${describe(err)}`);
    process.exitCode = 1;
  });
}

/** An engine error carries the whole `pulumi up` output (twice): its end says why. */
function describe(err: unknown): string {
  const result = (err as { commandResult?: { code: number; stdout: string; stderr: string } }).commandResult;
  if (result) {
    const out = `${result.stdout}\n${result.stderr}`.trim();
    return `pulumi exited with code ${result.code}:\n${out.length > 4000 ? "...\n" + out.slice(-4000) : out}`;
  }
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * One untimed `pulumi up` of each program (1 resource): the first run of a
 * process pays for cold file caches and the engine's first start. Not in
 * --quick, whose figures mean nothing anyway: it only proves each benchmark runs.
 */
export async function warmUp(baseline?: string): Promise<void> {
  if (QUICK) return;
  const { startSimulator } = await import("../simulator");
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  try {
    // This checkout's programs, and the baseline's Vms on both ways in (engine-overhead --baseline).
    const vms = (checkout: string) =>
      WAYS_IN.map((via) => ["vms", vmsConfig(via, sim.url, { count: 1 }), checkout] as const);
    const stacks = [["noop", { count: 1 }, ROOT] as const, ...vms(ROOT), ...(baseline ? vms(baseline) : [])];
    for (const [program, config, checkout] of stacks) {
      const s = await newStack(program, config, {}, checkout);
      try {
        await s.up();
      } finally {
        await s.dispose();
      }
    }
  } finally {
    await sim.close();
  }
}
