// A stack of test/e2e/programs/fleet driven through the real `pulumi` CLI (not
// the Automation API: the kill matrix and the pipelines script need the
// process itself, to kill it and to run several at once), with its own file
// backend. Used by scripts/kill-matrix.ts and scripts/pipelines.ts.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { engineEnv, ROOT } from "./engine-env";

const FLEET = path.join(ROOT, "test", "e2e", "programs", "fleet");
const WORK = path.join(ROOT, ".e2e-work");
/** Each way in's Vm type and the namespace of its settings (the program's config `via` picks one). */
export const WAYS_IN = {
  dynamic: { vmType: "pulumi-nodejs:dynamic/goPveQemu:Vm", ns: "goPveQemu" },
  plugin: { vmType: "gopveqemu:index:Vm", ns: "gopveqemu" },
} as const;
export type WayIn = keyof typeof WAYS_IN;
/** The package's command line, as built. */
const CLI = path.join(ROOT, "dist", "provider", "cli", "index.js");

interface CliRun {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; seconds: number }>;
}

export interface CliStack {
  name: string;
  workDir: string;
  env: Record<string, string>;
  /**
   * Starts `pulumi <args>` in its own process group (as a terminal or CI job
   * runs it); `extraEnv` over the stack's environment (another runner's
   * install journal, say).
   */
  start(args: string[], extraEnv?: Record<string, string>): CliRun;
  /** Runs `pulumi <args>` to its end. */
  run(
    args: string[],
    extraEnv?: Record<string, string>,
  ): Promise<{ code: number | null; output: string; seconds: number }>;
  /** Runs the package's command line (`go-pve-qemu-pulumi <args>`) in the stack's folder. */
  cli(
    args: string[],
    extraEnv?: Record<string, string>,
  ): Promise<{ code: number | null; output: string; seconds: number }>;
  /** VMIDs of the Vm resources in the stack's state. */
  vmidsInState(): Promise<number[]>;
  /** Pending operations the state records. */
  pendingOperations(): Promise<number>;
  dispose(): void;
}

export async function newCliStack(opts: {
  name: string;
  endpoint: string;
  vms: Record<string, object>;
  config?: Record<string, string>;
  /** The state's backend (a PostgreSQL URL, say); a local file backend of its own when omitted. */
  backendUrl?: string;
  /** The way in the Vms go through (default: the dynamic provider); `goPveQemu:` keys of `config` follow it. */
  via?: WayIn;
}): Promise<CliStack> {
  const way = WAYS_IN[opts.via ?? "dynamic"];
  const setting = (key: string): string => key.replace(/^goPveQemu:/, `${way.ns}:`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `gpq-${opts.name}-`));
  const backendDir = path.join(scratch, "backend");
  fs.mkdirSync(backendDir);
  fs.mkdirSync(WORK, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(WORK, `${opts.name}-`));
  fs.cpSync(FLEET, workDir, { recursive: true });
  const env = {
    ...engineEnv({ backendDir, homeDir: path.join(scratch, "home"), passphrase: "cli-stack" }),
    ...(opts.backendUrl ? { PULUMI_BACKEND_URL: opts.backendUrl } : {}),
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
  };
  const spawned = (cmd: string, args: string[], extraEnv: Record<string, string> = {}): CliRun => {
    const t0 = Date.now();
    const child = spawn(cmd, args, {
      cwd: workDir,
      env: { ...process.env, ...env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const done = new Promise<Awaited<CliRun["done"]>>((resolve) =>
      child.on("close", (code, signal) => resolve({ code, signal, output: out, seconds: (Date.now() - t0) / 1000 })),
    );
    return { child, output: () => out, done };
  };
  const start = (args: string[], extraEnv?: Record<string, string>): CliRun =>
    spawned("pulumi", [...args, "--non-interactive"], extraEnv);
  const must = async (args: string[]) => {
    const r = await start(args).done;
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")}: exit ${r.code}\n${r.output.slice(-3000)}`);
    return r.output;
  };
  await must(["stack", "init", opts.name]);
  await must(["config", "set", setting("goPveQemu:endpoint"), opts.endpoint]);
  await must(["config", "set", "vms", JSON.stringify(opts.vms)]);
  if (opts.via === "plugin") await must(["config", "set", "via", "plugin"]);
  for (const [k, v] of Object.entries(opts.config ?? {})) await must(["config", "set", setting(k), v]);

  /** The state as `pulumi stack export` gives it: any backend. */
  const latest = async () =>
    (
      JSON.parse(await must(["stack", "export"])) as {
        deployment: { resources?: { type: string; id?: string }[]; pending_operations?: unknown[] };
      }
    ).deployment;
  return {
    name: opts.name,
    workDir,
    env,
    start,
    run: (args, extraEnv) => start(args, extraEnv).done,
    cli: (args, extraEnv) => spawned(process.execPath, [CLI, ...args], extraEnv).done,
    vmidsInState: async () =>
      ((await latest()).resources ?? [])
        .filter((r) => r.type === way.vmType && r.id)
        .map((r) => Number(r.id))
        .sort((a, b) => a - b),
    pendingOperations: async () => ((await latest()).pending_operations ?? []).length,
    dispose: () => {
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** The process runs: it exists (signal 0 asks without signalling) and has not exited. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A process that has exited but not been waited for (its parent died: init reaps it, in its own time)
  // still takes signals: it has ended all the same.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Every process of a process group is gone (or signalled to go). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Polls until `f` answers true or `ms` pass; answers whether it did. */
export async function waitFor(f: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return f();
}
