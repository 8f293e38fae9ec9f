// Shared by the example tests: a simulator, the engine's environment, a copy
// of an example inside the repository (so `go-pve-qemu-pulumi` resolves to
// this checkout, as in test/e2e/harness.ts), the simulator's VM list, and
// child processes run asynchronously (the simulator serves from this process).
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from "../../simulator";
import { engineEnv, ensureEngine, ROOT } from "../../scripts/engine-env";

export { ROOT };
export const EXAMPLES = path.join(ROOT, "examples");
const WORK = path.join(ROOT, ".e2e-work");

export interface Sandbox {
  sim: SimulatorHandle;
  /** Scratch folder outside the repository (backend, engine home). */
  scratch: string;
  /** Folders made inside the repository for this sandbox, removed by dispose. */
  workDirs: string[];
  /** The engine's environment with a fresh file backend in scratch. */
  env: Record<string, string>;
  /** A fresh copy of examples/<name> inside the repository. */
  copyExample(name: string): string;
  dispose(): Promise<void>;
}

export async function newSandbox(
  passphrase = "examples-passphrase",
  simOptions: SimulatorOptions = {},
): Promise<Sandbox> {
  const sim = await startSimulator({ speed: 2000, ...simOptions });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-examples-"));
  fs.mkdirSync(path.join(scratch, "backend"));
  const bin = ensureEngine();
  const env = {
    ...engineEnv({ backendDir: path.join(scratch, "backend"), homeDir: path.join(scratch, "home"), passphrase }),
    GO_PVE_QEMU_ENGINE_BIN: bin,
  };
  const workDirs: string[] = [];
  return {
    sim,
    scratch,
    workDirs,
    env,
    copyExample(name) {
      fs.mkdirSync(WORK, { recursive: true });
      const dir = fs.mkdtempSync(path.join(WORK, `example-${name}-`));
      fs.cpSync(path.join(EXAMPLES, name), dir, { recursive: true });
      workDirs.push(dir);
      return dir;
    },
    async dispose() {
      await sim.close();
      fs.rmSync(scratch, { recursive: true, force: true });
      for (const d of workDirs) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

export interface SimVm {
  vmid: number;
  name: string;
  node: string;
  cpu: number;
  memory: number;
  disk: number;
  running: boolean;
}

/** GET /api/vm/list of the simulator, in either of the shapes the server sends. */
export async function listVms(url: string): Promise<SimVm[]> {
  const res = await fetch(`${url.replace(/\/+$/, "")}/api/vm/list`);
  if (!res.ok) throw new Error(`GET /api/vm/list: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { list?: SimVm[] | null; vms?: SimVm[] | null; data?: SimVm[] | null };
  return body.list ?? body.vms ?? body.data ?? [];
}

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs a command to its end without blocking the event loop; stdout and stderr together. */
export function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** A readable failure message: the tail of a child's output. */
export function tail(text: string, lines = 60): string {
  return text.split("\n").slice(-lines).join("\n");
}
