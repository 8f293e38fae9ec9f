// The resource plugin as a user installs it: the release tarball
// (scripts/plugin-tarball.ts) put into an empty Pulumi home with
// `pulumi plugin install resource gopveqemu <version> --file`, then a YAML
// program's `up` and `destroy` against the simulator through the real engine,
// with no plugin on PATH (this checkout's bin/ left out, ambient plugins
// ignored) and a Node.js too old for it first on PATH (a pinned one, whatever
// the machine's own is): the engine can only run the installed copy, and that
// copy only with the Node.js it brings. And the launcher's own
// folder named in Pulumi.yaml (`plugins.providers[].path`), nothing installed.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { ROOT, engineEnv, ensureEngine } from "../../scripts/engine-env";
import { pluginTarball } from "../../scripts/plugin-tarball";
import { ensureConsumer } from "../consumers/harness";
import { oldNode, projectNode, type NodeBinary } from "../support/node-binaries";

jest.setTimeout(300_000);

const exec = promisify(execFile);
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

async function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** The machine's PATH without this checkout's plugin launcher and without any node_modules/.bin (Node.js 22). */
function pathWithoutCheckout(): string[] {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((d) => d !== "" && d !== path.join(ROOT, "bin") && !d.includes("node_modules"));
}

/**
 * A folder holding the CLI and the YAML language host side by side, as Pulumi's
 * own distribution ships them: the YAML host is a bundled plugin, which the
 * engine looks for beside the running `pulumi` once ambient plugins are
 * ignored (and which `pulumi plugin install` refuses). Hard links where they
 * can be, so that nothing 100 MB is copied.
 */
function cliWithYaml(dir: string, yamlHost: string): string {
  fs.mkdirSync(dir);
  for (const [from, name] of [
    [path.join(ensureEngine(), "pulumi"), "pulumi"],
    [path.join(yamlHost, "pulumi-language-yaml"), "pulumi-language-yaml"],
  ] as const) {
    try {
      fs.linkSync(from, path.join(dir, name));
    } catch {
      fs.copyFileSync(from, path.join(dir, name));
      fs.chmodSync(path.join(dir, name), 0o755);
    }
  }
  return dir;
}

const PROGRAM = `name: plugin-tarball
runtime: yaml
resources:
  web:
    type: gopveqemu:Vm
    properties:
      os: ubuntu
      version: "24.04"
      name: web
      cpu: 2
      memoryMb: 2048
outputs:
  vmid: \${web.vmid}
`;

describe("the resource plugin as a user installs it", () => {
  let tmp: string;
  let tarball: string;
  let sim: SimulatorHandle;
  let env: NodeJS.ProcessEnv;
  /** First on PATH for the engine's runs: a plugin that ran `node` from PATH would be refused there. */
  let old: NodeBinary;
  const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], path.join(tmp, "project"), env);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-plugin-tarball-"));
    tarball = pluginTarball({ withNode: true });
    old = await oldNode();
    const yamlHost = ensureConsumer("yaml");
    for (const d of ["backend", "home", "project"]) fs.mkdirSync(path.join(tmp, d));
    fs.writeFileSync(path.join(tmp, "project", "Pulumi.yaml"), PROGRAM);
    env = {
      ...process.env,
      ...engineEnv({ backendDir: path.join(tmp, "backend"), homeDir: path.join(tmp, "home") }),
      PATH: [cliWithYaml(path.join(tmp, "cli"), yamlHost), path.dirname(old.path), ...pathWithoutCheckout()].join(
        path.delimiter,
      ),
      PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
      GO_PVE_QEMU_ENDPOINT: "",
      GO_PVE_QEMU_TOKEN: "",
    };
    sim = await startSimulator({ speed: 2000 });
  });
  afterAll(async () => {
    await sim?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("holds the launcher at its root, the built provider, the schema and the runtime packages, no dev tool", async () => {
    const { stdout } = await exec("tar", ["-tzvf", tarball], { maxBuffer: 64 * 1024 * 1024 });
    const lines = stdout.split("\n");
    const entry = (name: string) => lines.find((l) => l.endsWith(` ${name}`) || l.endsWith(` ./${name}`));
    expect(entry("pulumi-resource-gopveqemu")).toMatch(/^-rwx/);
    expect(entry("node_modules/.bin/node")).toMatch(/^-rwx/);
    for (const f of [
      "package.json",
      "dist/provider/plugin/entry.js",
      "schema/schema.json",
      "node_modules/@pulumi/pulumi/package.json",
      "node_modules/@grpc/grpc-js/package.json",
      "node_modules/undici/package.json",
      "node_modules/zod/package.json",
    ])
      expect(entry(f)).toBeDefined();
    for (const dev of ["typescript", "jest", "eslint", "node", "@swc/core", "knip"])
      expect(entry(`node_modules/${dev}/package.json`)).toBeUndefined();
    // Only the provider's build: neither the simulator, the scripts nor the benchmarks.
    expect(lines.filter((l) => / (\.\/)?dist\/(?!provider\/|$)/.test(l))).toEqual([]);
    // No symlink: what the engine unpacks is what ran here.
    expect(lines.filter((l) => l.startsWith("l"))).toEqual([]);
  });

  it("installs into the Pulumi home; a YAML program's up creates the VM, destroy removes it", async () => {
    // Nothing on PATH would serve the program: no launcher, and first a Node.js too old for one.
    for (const dir of pathWithoutCheckout())
      expect(fs.existsSync(path.join(dir, "pulumi-resource-gopveqemu"))).toBe(false);
    const install = await pulumi("plugin", "install", "resource", "gopveqemu", VERSION, "--file", tarball);
    expect(install).toMatchObject({ code: 0 });
    const installed = path.join(tmp, "home", "plugins", `resource-gopveqemu-v${VERSION}`);
    expect(fs.existsSync(path.join(installed, "pulumi-resource-gopveqemu"))).toBe(true);
    const listed = await pulumi("plugin", "ls", "--json");
    expect(JSON.parse(listed.out)).toEqual([
      expect.objectContaining({ name: "gopveqemu", kind: "resource", version: VERSION }),
    ]);

    expect((await pulumi("stack", "init", "dev")).code).toBe(0);
    expect((await pulumi("config", "set", "gopveqemu:endpoint", sim.url)).code).toBe(0);
    const up = await pulumi("up", "--yes");
    expect(up.out).toMatch(/\+\s+gopveqemu:index:Vm\s+web\s+created/);
    expect(up).toMatchObject({ code: 0 });
    expect(sim.vms()).toHaveLength(1);
    const state = fs.readFileSync(path.join(tmp, "backend", ".pulumi", "stacks", "plugin-tarball", "dev.json"), "utf8");
    expect(state).toContain('"type":"pulumi:providers:gopveqemu"');
    expect(state).not.toContain(ROOT);

    const destroy = await pulumi("destroy", "--yes");
    expect(destroy).toMatchObject({ code: 0 });
    expect(sim.vms()).toEqual([]);
  });

  it("or the package's own launcher, its folder named in Pulumi.yaml: up and destroy with nothing installed", async () => {
    // A Pulumi home of its own, with no plugin installed: only the folder Pulumi.yaml names can serve.
    const project = path.join(tmp, "project-by-path");
    for (const d of [project, path.join(tmp, "backend-by-path"), path.join(tmp, "home-by-path")]) fs.mkdirSync(d);
    const program = PROGRAM.replace("name: plugin-tarball\nruntime: yaml\n", "name: plugin-by-path\nruntime: yaml\n");
    const plugins = `plugins:\n  providers:\n    - name: gopveqemu\n      path: ${path.join(ROOT, "bin")}\n`;
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), program + plugins);
    const byPath = {
      ...env,
      ...engineEnv({ backendDir: path.join(tmp, "backend-by-path"), homeDir: path.join(tmp, "home-by-path") }),
      PATH: env.PATH,
    };
    const cli = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], project, byPath);
    expect((await cli("stack", "init", "dev")).code).toBe(0);
    expect((await cli("config", "set", "gopveqemu:endpoint", sim.url)).code).toBe(0);
    const up = await cli("up", "--yes");
    expect(up).toMatchObject({ code: 0 });
    expect(up.out).toMatch(/\+\s+gopveqemu:index:Vm\s+web\s+created/);
    expect(sim.vms()).toHaveLength(1);
    expect(fs.existsSync(path.join(tmp, "home-by-path", "plugins"))).toBe(false);
    expect((await cli("destroy", "--yes")).code).toBe(0);
    expect(sim.vms()).toEqual([]);
  });

  /** The tarball without its Node.js, unpacked once: its launcher then runs the first `node` on PATH. */
  let bare: string | undefined;
  async function bareLauncher(): Promise<string> {
    if (bare === undefined) {
      const dir = path.join(tmp, "no-node");
      fs.mkdirSync(dir);
      await exec("tar", ["-xzf", pluginTarball({ withNode: false }), "-C", dir]);
      expect(fs.existsSync(path.join(dir, "node_modules", ".bin", "node"))).toBe(false);
      bare = path.join(dir, "pulumi-resource-gopveqemu");
    }
    return bare;
  }

  it("without its Node.js, on the pinned old Node.js first on PATH, the plugin says which Node.js it needs", async () => {
    const launcher = await bareLauncher();
    const started = await run(launcher, [], path.dirname(launcher), {
      ...process.env,
      PATH: [path.dirname(old.path), ...pathWithoutCheckout()].join(path.delimiter),
    });
    expect(started.code).not.toBe(0);
    expect(started.out).toContain(`go-pve-qemu-pulumi: Node.js >= 22.19 is required (found ${old.version})`);
  });

  it("without its Node.js, on this project's Node.js 22 first on PATH, the plugin starts and serves", async () => {
    const launcher = await bareLauncher();
    const node = await projectNode();
    const child = spawn(launcher, [], {
      cwd: path.dirname(launcher),
      env: { ...process.env, PATH: [path.dirname(node.path), ...pathWithoutCheckout()].join(path.delimiter) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // A plugin that starts prints the port it serves on, as the engine reads it, and keeps serving.
    const first = await Promise.race([
      new Promise<string>((resolve) => child.stdout.on("data", () => /\n/.test(out) && resolve(out))),
      exited.then((code) => `exited ${code}: ${out}`),
    ]);
    child.kill("SIGTERM");
    await exited;
    expect(first).toMatch(/^\d+\n/);
  });
});
