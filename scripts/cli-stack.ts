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
const VM_TYPE = "pulumi-nodejs:dynamic/goPveQemu:Vm";

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
  /** Starts `pulumi <args>` in its own process group (as a terminal or CI job runs it). */
  start(args: string[]): CliRun;
  /** Runs `pulumi <args>` to its end. */
  run(args: string[]): Promise<{ code: number | null; output: string; seconds: number }>;
  /** VMIDs of the Vm resources in the stack's state. */
  vmidsInState(): number[];
  /** Pending operations the state records. */
  pendingOperations(): number;
  /** The backend holds a lock of this stack (a killed `pulumi` leaves its lock behind). */
  locked(): boolean;
  dispose(): void;
}

export async function newCliStack(opts: {
  name: string;
  endpoint: string;
  vms: Record<string, object>;
  config?: Record<string, string>;
}): Promise<CliStack> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `gpq-${opts.name}-`));
  const backendDir = path.join(scratch, "backend");
  fs.mkdirSync(backendDir);
  fs.mkdirSync(WORK, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(WORK, `${opts.name}-`));
  fs.cpSync(FLEET, workDir, { recursive: true });
  const env = {
    ...engineEnv({ backendDir, homeDir: path.join(scratch, "home"), passphrase: "cli-stack" }),
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
  };
  const start = (args: string[]): CliRun => {
    const t0 = Date.now();
    const child = spawn("pulumi", [...args, "--non-interactive"], {
      cwd: workDir,
      env: { ...process.env, ...env },
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
  const must = async (args: string[]) => {
    const r = await start(args).done;
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")}: exit ${r.code}\n${r.output.slice(-3000)}`);
  };
  await must(["stack", "init", opts.name]);
  await must(["config", "set", "goPveQemu:endpoint", opts.endpoint]);
  await must(["config", "set", "vms", JSON.stringify(opts.vms)]);
  for (const [k, v] of Object.entries(opts.config ?? {})) await must(["config", "set", k, v]);

  const latest = () => {
    const file = path.join(backendDir, ".pulumi", "stacks", "fleet", `${opts.name}.json`);
    if (!fs.existsSync(file)) return {};
    return (JSON.parse(fs.readFileSync(file, "utf8")).checkpoint?.latest ?? {}) as {
      resources?: { type: string; id?: string }[];
      pending_operations?: unknown[];
    };
  };
  return {
    name: opts.name,
    workDir,
    env,
    start,
    run: (args) => start(args).done,
    vmidsInState: () =>
      (latest().resources ?? [])
        .filter((r) => r.type === VM_TYPE && r.id)
        .map((r) => Number(r.id))
        .sort((a, b) => a - b),
    pendingOperations: () => (latest().pending_operations ?? []).length,
    locked: () => {
      const dir = path.join(backendDir, ".pulumi", "locks");
      return (
        fs.existsSync(dir) &&
        fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .some((e) => e.isFile() && e.name.endsWith(".json"))
      );
    },
    dispose: () => {
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** The process exists (signal 0 asks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
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
