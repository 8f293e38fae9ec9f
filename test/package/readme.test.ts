// The README's commands as a new user meets them: the first screen shows
// exactly the two commands, CI runs the README's test command as written, the
// README stays a README (at most 450 lines), and the snippet of docs/engine.md
// for running the engine by hand works on a machine where nothing was run
// before (no state folder, no Pulumi home, no login).
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";
import { readmeStarter } from "./user-project";

const exec = promisify(execFile);
const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

/** The commands of a sh block: its lines without comments and blank lines. */
function commands(block: string): string[] {
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

function shBlocks(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("the README's commands", () => {
  it("the first screen shows exactly the two commands", () => {
    // Everything before the first section.
    const firstScreen = readme.slice(0, readme.indexOf("\n## "));
    const blocks = shBlocks(firstScreen);
    expect(blocks).toHaveLength(1);
    expect(commands(blocks[0]!)).toEqual(["npm run demo", "npm test"]);
  });

  it("CI runs the README's test command exactly as written, and nothing else installs first", () => {
    const ci = commands(fs.readFileSync(path.join(ROOT, ".ci", "run"), "utf8")).filter((l) => !/^(set|cd) /.test(l));
    expect(ci).toContain("npm test");
    expect(ci).not.toContain("npm ci");
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    expect(pkg.scripts.test).toBe("bash scripts/test.sh");
    expect(fs.readFileSync(path.join(ROOT, "scripts", "test.sh"), "utf8")).toMatch(/^source .*setup\.sh"$/m);
  });

  it("is a README, not a manual: at most 450 lines, the rest in docs/", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(450);
  });

  it("has a first program for every language within its first 100 lines", () => {
    /** Each fenced block: its language, its text, and the line of its closing fence. */
    const blocks = [...readme.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({
      lang: m[1],
      code: m[2]!,
      endLine: readme.slice(0, m.index + m[0].length).split("\n").length,
    }));
    const firstProgram = (lang: string, marker: string) =>
      blocks.find((b) => b.lang === lang && b.code.includes(marker))?.endLine ?? Infinity;
    const ends = {
      dynamic: firstProgram("ts", 'from "go-pve-qemu-pulumi"'),
      yaml: firstProgram("yaml", "gopveqemu:Vm"),
      typescriptSdk: firstProgram("ts", 'from "@go-pve-qemu/pulumi"'),
      python: firstProgram("python", "gopveqemu.Vm("),
      go: firstProgram("go", "gopveqemu.NewVm("),
    };
    const late = Object.entries(ends).filter(([, line]) => line > 100);
    expect(late).toEqual([]);
  });

  it("the snippet for running the engine by hand works where nothing was run before", async () => {
    const engineDoc = fs.readFileSync(path.join(ROOT, "docs", "engine.md"), "utf8");
    const snippet = shBlocks(engineDoc).find((b) => b.includes("pulumi stack ls"));
    expect(snippet).toBeDefined();
    // A folder with what the snippet refers to and no state of any run: the
    // engine script (its cache is found by the same key) and the project file.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-snippet-"));
    try {
      fs.mkdirSync(path.join(dir, "scripts"));
      fs.copyFileSync(path.join(ROOT, "scripts", "ensure-engine.sh"), path.join(dir, "scripts", "ensure-engine.sh"));
      fs.cpSync(path.join(ROOT, "engine"), path.join(dir, "engine"), { recursive: true });
      fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(env)) if (key.startsWith("PULUMI_")) delete env[key];
      delete env.GO_PVE_QEMU_ENGINE_BIN;
      const { stdout } = await exec("bash", ["-euo", "pipefail", "-c", snippet!], { cwd: dir, env });
      expect(stdout).toMatch(/^NAME\s+LAST UPDATE\s+RESOURCE COUNT/m);
      expect(fs.existsSync(path.join(dir, ".pulumi-state", "home"))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the README's starter project", () => {
  it("has the four files, and its package.json allows the @pulumi/pulumi the tests use", () => {
    const files = readmeStarter();
    expect(Object.keys(files).sort()).toEqual(["Pulumi.yaml", "index.ts", "package.json", "tsconfig.json"]);
    const pkg = JSON.parse(files["package.json"]!);
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    expect(pkg.dependencies["@pulumi/pulumi"]).toBe(`^${own.peerDependencies["@pulumi/pulumi"].match(/>=(\S+)/)[1]}`);
    // The version it documents, and every later minor before 1.0 (^0.x would pin the minor): package.json's.
    expect(pkg.dependencies["go-pve-qemu-pulumi"]).toBe(`>=${own.version} <1.0.0`);
    expect(files["index.ts"]).toContain('from "go-pve-qemu-pulumi"');
    expect(files["Pulumi.yaml"]).toMatch(/typescript: true/);
  });
});
