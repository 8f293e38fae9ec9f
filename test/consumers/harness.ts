// The consumers of the resource plugin (package gopveqemu): one program per
// language under test/consumers/<lang>/, each run through the real engine
// against its own simulator, with its own file backend. A consumer is driven
// by operation (up, preview, refresh, destroy) and answers what a user sees:
// the exit code and everything printed. The Pulumi CLI runs the YAML and
// TypeScript programs; the Python and Go programs are Automation API inline
// programs that run one operation per invocation (their SDK serves the
// program in-process, so no Python or Go language host is needed).
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { engineEnv, ROOT } from "../../scripts/engine-env";

/** `preview` as a CI check (`--expect-no-changes`), `plan` the preview of what will change. */
export type Op = "up" | "preview" | "plan" | "refresh" | "destroy";

export interface Run {
  code: number | null;
  /** stdout and stderr, in the order they came. */
  output: string;
}

/** The stack's configuration: `gopveqemu:*` keys and the program's own (unprefixed) ones; a secret as `{ secret }`. */
export type StackConfig = Record<string, string | { secret: string }>;

const VM_TYPE = "gopveqemu:index:Vm";
const STACK = "consumer";
const WORK = path.join(ROOT, ".e2e-work");

/** How one language's program is run: the engine's command line, or an Automation API program. */
export interface Driver {
  /** Pulumi project name (the state's folder in the backend). */
  project: string;
  /** Prepares the scratch folder (copies the program, compiles what it needs); answers extra PATH entries. */
  prepare(workDir: string): string[];
  /** The command for one operation: CLI drivers give `pulumi` args, program drivers their own command. */
  command(op: Op, workDir: string): { cmd: string; args: string[] };
  /** Whether configuration goes through `pulumi config set` (CLI) or the program's environment. */
  configVia: "cli" | "env";
  /** More environment for its runs. */
  env?: Record<string, string>;
}

export interface Consumer {
  sim: SimulatorHandle;
  /** The endpoint the stack is given: a pass-through in front of the simulator that notes each request's Authorization. */
  endpoint: string;
  /** The Authorization headers the server was sent, each once ("" for a request without one). */
  authorizations(): string[];
  /** Everything every run printed so far. */
  printed(): string;
  /** The raw text of every file of the backend: the stack's state, its backups and history. */
  stateText(): string;
  setConfig(config: StackConfig): Promise<void>;
  run(op: Op): Promise<Run>;
  /** `pulumi <args>` in the program's folder and environment (a CLI driver's stack). */
  pulumi(args: string[]): Promise<Run>;
  /** One operation started, for a test that signals it (a Ctrl-C is SIGINT to its process group). */
  start(op: Op): { pid: number; done: Promise<Run> };
  /** The Vm resources of the stack's last checkpoint. */
  vms(): { id?: string; outputs: Record<string, unknown> }[];
  dispose(): Promise<void>;
}

/** A toolchain path from scripts/ensure-consumers.sh (built once, cached; progress on stderr). */
export function ensureConsumer(part: "yaml" | "python" | "python-sdk" | "go"): string {
  return execFileSync("bash", [path.join(ROOT, "scripts", "ensure-consumers.sh"), part], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  }).trim();
}

/**
 * The server's step bounds cut to a second: once the simulator has finished
 * at its fastest, an unconfirmed install's settle time is past, and the next
 * `up` records it from what the server shows.
 */
export const SHORT_BOUNDS = {
  "gopveqemu:initScriptBoundMs": "1000",
  "gopveqemu:sshWaitBoundMs": "1000",
  "gopveqemu:commandBoundMs": "1000",
  "gopveqemu:imageDownloadBoundMs": "1000",
};

/** The flags of the CLI's run of an operation, as a CI job runs it. */
export function cliArgs(op: Op): string[] {
  const common = ["--non-interactive", "--stack", STACK];
  if (op === "preview") return ["preview", "--expect-no-changes", "--diff", ...common];
  if (op === "plan") return ["preview", "--diff", ...common];
  return [op, "--yes", "--skip-preview", ...common];
}

/** `port`: the endpoint's (a state written against that port); `stateFile`: the simulator's VMs; `passphrase`: the stack's. */
export interface ConsumerOptions {
  speed?: number;
  port?: number;
  stateFile?: string;
  passphrase?: string;
}

export async function newConsumer(driver: Driver, opts: ConsumerOptions = {}): Promise<Consumer> {
  const sim = await startSimulator({
    speed: opts.speed ?? 2000,
    ...(opts.stateFile ? { stateFile: opts.stateFile } : {}),
  });
  const front = await passThrough(sim.url, opts.port);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `gpq-${driver.project}-`));
  const backendDir = path.join(scratch, "backend");
  fs.mkdirSync(backendDir);
  // The program runs from a folder inside the repository, so that a Node.js
  // program resolves @pulumi/pulumi from this checkout's node_modules.
  fs.mkdirSync(WORK, { recursive: true });
  const workDir = fs.mkdtempSync(path.join(WORK, `${driver.project}-`));
  const extraPath = driver.prepare(workDir);
  const base = engineEnv({
    backendDir,
    homeDir: path.join(scratch, "home"),
    passphrase: opts.passphrase ?? "consumers",
  });
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...base,
    // The engine finds pulumi-resource-gopveqemu on PATH: this checkout's launcher first.
    PATH: [path.join(ROOT, "bin"), ...extraPath, base.PATH].join(path.delimiter),
    // The developer's own defaults must not leak into the tests (empty means unset).
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
    CONSUMER_STACK: STACK,
    CONSUMER_CONFIG: "{}",
    ...driver.env,
  };
  // Plugins on PATH are how the engine finds this checkout's plugin.
  delete env.PULUMI_IGNORE_AMBIENT_PLUGINS;

  let printed = "";
  const started = (cmd: string, args: string[]): { pid: number; done: Promise<Run> } => {
    // In its own process group, as in a terminal: a Ctrl-C reaches the whole group.
    const child = spawn(cmd, args, { cwd: workDir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    return { pid: child.pid!, done: outcome(child) };
  };
  const spawned = (cmd: string, args: string[]): Promise<Run> =>
    outcome(spawn(cmd, args, { cwd: workDir, env, stdio: ["ignore", "pipe", "pipe"] }));
  const outcome = (child: ReturnType<typeof spawn>): Promise<Run> =>
    new Promise((resolve, reject) => {
      let output = "";
      child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => {
        printed += output;
        resolve({ code, output });
      });
    });
  const must = async (cmd: string, args: string[]) => {
    const r = await spawned(cmd, args);
    if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")}: exit ${r.code}\n${r.output.slice(-3000)}`);
  };
  if (driver.configVia === "cli") await must("pulumi", ["stack", "init", STACK, "--non-interactive"]);

  const stateFile = path.join(backendDir, ".pulumi", "stacks", driver.project, `${STACK}.json`);
  return {
    sim,
    endpoint: front.url,
    authorizations: () => [...front.authorizations],
    printed: () => printed,
    stateText: () =>
      (fs.readdirSync(backendDir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((e) => e.isFile())
        .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "utf8"))
        .join("\n"),
    setConfig: async (config) => {
      if (driver.configVia === "env") {
        env.CONSUMER_CONFIG = JSON.stringify(config);
        return;
      }
      for (const [key, value] of Object.entries(config)) {
        if (typeof value === "string") await must("pulumi", ["config", "set", "--stack", STACK, key, value]);
        else await must("pulumi", ["config", "set", "--stack", STACK, "--secret", key, value.secret]);
      }
    },
    run: (op) => {
      const { cmd, args } = driver.command(op, workDir);
      return spawned(cmd, args);
    },
    start: (op) => {
      const { cmd, args } = driver.command(op, workDir);
      return started(cmd, args);
    },
    pulumi: (args) => spawned("pulumi", args),
    vms: () => {
      if (!fs.existsSync(stateFile)) return [];
      const checkpoint = JSON.parse(fs.readFileSync(stateFile, "utf8")) as {
        checkpoint?: { latest?: { resources?: { type: string; id?: string; outputs?: Record<string, unknown> }[] } };
      };
      return (checkpoint.checkpoint?.latest?.resources ?? [])
        .filter((r) => r.type === VM_TYPE)
        .map((r) => ({ id: r.id, outputs: r.outputs ?? {} }));
    },
    dispose: async () => {
      await front.close();
      await sim.close();
      fs.rmSync(scratch, { recursive: true, force: true });
      fs.rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/**
 * An HTTP pass-through to `target` that notes the Authorization header of
 * each request: what a token in the stack's config made the provider send.
 * Streams (the server's event streams) pass byte for byte as they come.
 */
async function passThrough(
  target: string,
  port = 0,
): Promise<{ url: string; authorizations: Set<string>; close(): Promise<void> }> {
  const authorizations = new Set<string>();
  const server = http.createServer((req, res) => {
    authorizations.add(req.headers.authorization ?? "");
    const upstream = http.request(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
