// The package as a user gets it: `npm pack`, a fresh Pulumi TypeScript
// project in a temporary folder outside this repository, the tarball and
// @pulumi/pulumi installed there from the npm registry (local cache first),
// then `pulumi preview`, `up` and `destroy` against the simulator through the
// real engine. It proves that the serialized provider finds its
// implementation in the user's node_modules, not in this checkout, and that
// installing the package runs no install script of ours.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { pluginFirstLine } from "./plugin-start";
import { ROOT, engineEnv } from "../../scripts/engine-env";
import { oldNode, projectNode } from "../support/node-binaries";
import { userProject } from "./user-project";

jest.setTimeout(240_000);

const exec = promisify(execFile);

interface Run {
  code: number;
  out: string;
}

/** Runs a command asynchronously (the simulator serves from this process); never throws on a non-zero exit. */
async function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(cmd, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("the packed package in a project of its own", () => {
  const inProject = (cmd: string, args: string[]) =>
    run(cmd, args, project, { ...process.env, GO_PVE_QEMU_ENDPOINT: "" });
  let tmp: string;
  let project: string;
  let tarballFiles: string[];
  let installOutput: string;
  let sim: SimulatorHandle;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-user-"));
    expect(path.relative(ROOT, tmp).startsWith("..")).toBe(true);
    // dist/ is built by npm test's set-up; --ignore-scripts keeps `prepack` from
    // rebuilding it under the other suites that use it right now.
    const packed = await run(
      "npm",
      ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp],
      ROOT,
      process.env,
    );
    expect(packed.code).toBe(0);
    const info = JSON.parse(packed.out.slice(packed.out.indexOf("["))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    tarballFiles = info[0]!.files.map((f) => f.path);
    project = userProject(tmp, path.join(tmp, info[0]!.filename));
    const installed = await run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--foreground-scripts=false"],
      project,
      process.env,
    );
    installOutput = installed.out;
    expect(installed.code).toBe(0);
    sim = await startSimulator({ speed: 2000 });
  });
  afterAll(async () => {
    await sim?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("ships the built provider and simulator, their types, the plugin launcher, README and LICENSE only", () => {
    const outside = tarballFiles.filter(
      (f) =>
        !/^dist\/(provider|simulator)\/.+\.(js|d\.ts)$/.test(f) &&
        !["LICENSE", "README.md", "package.json", "bin/pulumi-resource-gopveqemu"].includes(f),
    );
    expect(outside).toEqual([]);
    expect(tarballFiles).toContain("dist/provider/index.d.ts");
    expect(tarballFiles).toContain("dist/provider/dynamic/provider-impl.js");
    expect(tarballFiles).toContain("dist/simulator/index.js");
    const manifest = JSON.parse(
      fs.readFileSync(path.join(project, "node_modules", "go-pve-qemu-pulumi", "package.json"), "utf8"),
    );
    expect(manifest.private).toBeUndefined();
    expect(manifest.peerDependencies["@pulumi/pulumi"]).toBeDefined();
    expect(manifest.dependencies["@pulumi/pulumi"]).toBeUndefined();
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(manifest.scripts[script]).toBeUndefined();
    // The command line, `npx go-pve-qemu-pulumi discover`
    // and the resource plugin's launcher, for the engine to find on PATH (node_modules/.bin).
    expect(manifest.bin).toEqual({
      "go-pve-qemu-pulumi": "dist/provider/cli/index.js",
      "pulumi-resource-gopveqemu": "bin/pulumi-resource-gopveqemu",
    });
    expect(tarballFiles).toContain("dist/provider/cli/index.js");
    expect(tarballFiles).toContain("dist/provider/plugin/entry.js");
  });

  it("serves the resource plugin from the project's node_modules/.bin, on the Node.js first on PATH", async () => {
    // The launcher npm linked, the project's @pulumi/pulumi, and Node.js 22 from PATH (the project brings none).
    const launcher = path.join(project, "node_modules", ".bin", "pulumi-resource-gopveqemu");
    const machinePath = (process.env.PATH ?? "").split(path.delimiter).filter((d) => !d.includes("node_modules"));
    const first = await pluginFirstLine(launcher, project, [path.dirname(process.execPath), ...machinePath]);
    expect(first).toMatch(/^\d+\n/);
  });

  it("runs `npx go-pve-qemu-pulumi discover` from the project, and the program it writes type-checks there", async () => {
    sim.addVm({ vmid: 150, name: "legacy-150", requestedName: "legacy", os: "debian", running: true });
    try {
      const out = path.join(project, "adopted.ts");
      const run = await inProject("npx", [
        "--no-install",
        "go-pve-qemu-pulumi",
        "discover",
        "--endpoint",
        sim.url,
        "--out",
        out,
      ]);
      expect(run.code).toBe(0);
      expect(run.out).toContain("1 to adopt, 0 held by the stacks given");
      fs.writeFileSync(
        path.join(project, "tsconfig.adopted.json"),
        '{ "extends": "./tsconfig.json", "files": ["adopted.ts"] }',
      );
      const tsc = await inProject(path.join(project, "node_modules", ".bin", "tsc"), [
        "--noEmit",
        "-p",
        "tsconfig.adopted.json",
      ]);
      for (const f of [out, path.join(project, "tsconfig.adopted.json")]) fs.rmSync(f);
      expect(tsc).toEqual({ code: 0, out: "" });
    } finally {
      sim.removeVm(150);
    }
  });

  it("type-checks the user's program against the shipped types", async () => {
    const tsc = await run(
      path.join(project, "node_modules", ".bin", "tsc"),
      ["--noEmit", "-p", "."],
      project,
      process.env,
    );
    expect(tsc).toEqual({ code: 0, out: "" });
    // and refuses what the input schema refuses
    fs.writeFileSync(path.join(project, "tsconfig.bad.json"), '{ "extends": "./tsconfig.json", "files": ["bad.ts"] }');
    fs.writeFileSync(
      path.join(project, "bad.ts"),
      [
        'import { Vm } from "go-pve-qemu-pulumi";',
        'import { startSimulator } from "go-pve-qemu-pulumi/simulator";',
        'new Vm("x", { os: "fedora", version: "40", cpus: 4 });',
        "void startSimulator({ speed: 1000 });",
        "void startSimulator({ sped: 1000 });",
        "",
      ].join("\n"),
    );
    const bad = await run(
      path.join(project, "node_modules", ".bin", "tsc"),
      ["--noEmit", "-p", "tsconfig.bad.json"],
      project,
      process.env,
    );
    for (const f of ["bad.ts", "tsconfig.bad.json"]) fs.rmSync(path.join(project, f));
    expect(bad.code).not.toBe(0);
    // exactly the two mistakes: the Vm's and the simulator's (its types resolve too)
    expect(bad.out).toContain('"fedora"');
    expect(bad.out).toMatch(/bad\.ts\(5,/);
    expect(bad.out.match(/error TS/g)).toHaveLength(2);
  });

  it("installs without an install script of ours, and with one copy of @pulumi/pulumi", () => {
    const scriptWarnings = installOutput.split("\n").filter((l) => /install-scripts/.test(l));
    expect(scriptWarnings.join("\n")).not.toMatch(/go-pve-qemu-pulumi@|\bnode@\d/);
    expect(fs.existsSync(path.join(project, "node_modules", "go-pve-qemu-pulumi", "node_modules", "@pulumi"))).toBe(
      false,
    );
  });

  it("previews, creates and destroys a VM through the engine, with the implementation from the project's node_modules", async () => {
    const env = {
      ...process.env,
      ...engineEnv({ backendDir: path.join(tmp, "backend"), homeDir: path.join(tmp, "home") }),
      GO_PVE_QEMU_ENDPOINT: "",
    };
    fs.mkdirSync(path.join(tmp, "backend"), { recursive: true });
    const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], project, env);
    expect((await pulumi("stack", "init", "dev")).code).toBe(0);
    expect((await pulumi("config", "set", "goPveQemu:endpoint", sim.url)).code).toBe(0);

    const preview = await pulumi("preview");
    expect(preview.out).toMatch(/\+\s+pulumi-nodejs:dynamic\/goPveQemu:Vm\s+web\s+create/);
    expect(preview.code).toBe(0);
    expect(sim.vms()).toEqual([]);

    const up = await pulumi("up", "--yes");
    expect(up.code).toBe(0);
    expect(sim.vms()).toHaveLength(1);
    expect(up.out).toMatch(/ip\s*:\s*"192\.168\.0\.\d+"/);
    const state = fs.readFileSync(path.join(tmp, "backend", ".pulumi", "stacks", "my-vms", "dev.json"), "utf8");
    // The serialized provider names the copy in the user's project, never this checkout.
    expect(state).toContain(path.join(project, "node_modules", "go-pve-qemu-pulumi"));
    expect(state).not.toContain(ROOT);

    const destroy = await pulumi("destroy", "--yes");
    expect(destroy.code).toBe(0);
    expect(sim.vms()).toEqual([]);
  });

  it("on this project's Node.js 22 the installed package loads: nothing to refuse", async () => {
    const node = await projectNode();
    expect(await run(node.path, ["-e", 'require("go-pve-qemu-pulumi")'], project, process.env)).toEqual({
      code: 0,
      out: "",
    });
  });

  it("on the pinned old Node.js, loading fails saying which Node.js is needed, and so does preview", async () => {
    const node = await oldNode();
    const loaded = await run(node.path, ["-e", 'require("go-pve-qemu-pulumi")'], project, process.env);
    const expected = `go-pve-qemu-pulumi: Node.js >= 22.19 is required (found ${node.version})`;
    expect(loaded.code).not.toBe(0);
    expect(loaded.out).toContain(expected);
    // The whole way: the engine runs the program with the old Node.js first on PATH.
    const engine = engineEnv({ backendDir: path.join(tmp, "backend-old-node"), homeDir: path.join(tmp, "home") });
    fs.mkdirSync(path.join(tmp, "backend-old-node"), { recursive: true });
    const bin = engine.PATH!.split(path.delimiter)[0]!;
    const env = {
      ...process.env,
      ...engine,
      PATH: [bin, path.dirname(node.path), process.env.PATH].join(path.delimiter),
    };
    const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], project, env);
    expect((await pulumi("stack", "init", "old-node")).code).toBe(0);
    await pulumi("config", "set", "goPveQemu:endpoint", sim.url);
    const preview = await pulumi("preview");
    expect(preview.code).not.toBe(0);
    expect(preview.out).toContain(expected);
    expect(preview.out).not.toContain("reading 'bind'");
  });
});
