// The SDKs come from schema/schema.json through Pulumi's own code generators
// (engine/codegen, built with Go from Pulumi's published module): the schema
// binds as a Pulumi package schema, a broken one fails with the binder's
// words, regenerating gives the committed sdk/ byte for byte, the TypeScript
// and Go SDKs compile as generated, and the Python SDK installs and imports.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);
/** The newest `pulumi` the Python package index serves (the engine's own version is not there yet). */
const PYPI_PULUMI = "3.272.0";
const genSdk = path.join(ROOT, "scripts", "gen-sdk.sh");
const GO_ENV = { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" };
// The first run builds the code generator (minutes without Go's build cache; seconds after the engine build).
const BUILD_MS = 15 * 60_000;

let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-sdk-"));
  await exec("bash", [genSdk, "--validate"], { env: GO_ENV });
}, BUILD_MS);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every file under `root`, by its path relative to it. */
function tree(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(root, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else files.set(rel, fs.readFileSync(path.join(root, rel)));
    }
  };
  walk("");
  return files;
}

test("the committed schema is a valid Pulumi package schema", async () => {
  const { stdout } = await exec("bash", [genSdk, "--validate"], { env: GO_ENV });
  expect(stdout).toContain("schema.json: a valid Pulumi package schema");
});

test("a broken schema fails with what the binder says, naming the property", async () => {
  const spec = JSON.parse(fs.readFileSync(path.join(ROOT, "schema", "schema.json"), "utf8"));
  spec.resources["gopveqemu:index:Vm"].inputProperties.cpu = { type: "integr" };
  spec.resources["gopveqemu:index:Vm"].properties.inputs = { $ref: "#/types/gopveqemu:index:Missing" };
  const broken = path.join(dir, "broken.json");
  fs.writeFileSync(broken, JSON.stringify(spec));
  const failure = exec("bash", [genSdk, "--validate", "--schema", broken], { env: GO_ENV });
  await expect(failure).rejects.toMatchObject({ code: 1 });
  const { stderr } = (await failure.catch((e: unknown) => e)) as { stderr: string };
  expect(stderr).toContain(
    `${broken}: #/resources/gopveqemu:index:Vm/inputProperties/cpu/type: unknown type kind integr\n`,
  );
  expect(stderr).toContain(
    `${broken}: #/resources/gopveqemu:index:Vm/properties/inputs/$ref: type gopveqemu:index:Missing not found in package gopveqemu\n`,
  );
  expect(stderr).toMatch(/: \d+ problem\(s\) \(above\)\n$/);
});

test(
  "regenerating gives the committed sdk/ byte for byte",
  async () => {
    const out = path.join(dir, "sdk");
    await exec("bash", [genSdk, "--out", out], { env: GO_ENV });
    const committed = tree(path.join(ROOT, "sdk"));
    const fresh = tree(out);
    expect([...fresh.keys()].sort()).toEqual([...committed.keys()].sort());
    const differ = [...fresh].filter(([file, bytes]) => !bytes.equals(committed.get(file)!)).map(([f]) => f);
    expect(differ).toEqual([]);
    // Each language's package carries the docs of the zod schemas.
    expect(fresh.get(path.join("nodejs", "vm.ts"))!.toString()).toContain("Memory in MB. Updated in place.");
    expect(fresh.get(path.join("python", "pulumi_gopveqemu", "vm.py"))!.toString()).toContain(
      "Memory in MB. Updated in place.",
    );
    expect(fresh.get(path.join("go", "gopveqemu", "vm.go"))!.toString()).toContain("Memory in MB. Updated in place.");
  },
  BUILD_MS,
);

test("the TypeScript SDK type-checks against the repository's @pulumi/pulumi", async () => {
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  await expect(
    exec(process.execPath, [tsc, "-p", path.join(ROOT, "sdk", "nodejs", "tsconfig.json"), "--noEmit"]),
  ).resolves.toBeDefined();
}, 120_000);

// -trimpath as the engine is built: its compiled packages (the Pulumi SDK's among them) are reused.
test(
  "the Go SDK builds where it stands",
  async () => {
    await expect(exec("go", ["build", "-trimpath", "./..."], { cwd: path.join(ROOT, "sdk", "go"), env: GO_ENV })).resolves.toBeDefined();
  },
  BUILD_MS,
);

/** A virtual environment with the `pulumi` package (and what builds a wheel), made once in the engine's cache. */
async function pythonWithPulumi(): Promise<string> {
  const cache = process.env.GO_PVE_QEMU_ENGINE_CACHE ?? path.join(os.homedir(), ".cache", "go-pve-qemu-pulumi");
  const venv = path.join(cache, `python-pulumi-${PYPI_PULUMI}`);
  const python = path.join(venv, "bin", "python");
  // Written last: a venv without it was left half made.
  const ready = path.join(venv, ".ready");
  if (fs.existsSync(ready)) return python;
  fs.rmSync(venv, { recursive: true, force: true });
  await exec("python3", ["-m", "venv", venv]);
  await exec(python, ["-m", "pip", "install", "-q", `pulumi==${PYPI_PULUMI}`, "setuptools>=61", "wheel"]);
  fs.writeFileSync(ready, "");
  return python;
}

test("the Python SDK installs and imports, with the pulumi package from the Python package index", async () => {
  const python = await pythonWithPulumi();
  // Installed from a copy into a folder of its own: the build leaves files beside its sources.
  const source = path.join(dir, "python-src");
  const target = path.join(dir, "python-site");
  fs.cpSync(path.join(ROOT, "sdk", "python"), source, { recursive: true });
  await exec(python, ["-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", target, source]);
  const probe = [
    "import pulumi_gopveqemu as g",
    "print(g.Vm.__name__, g.Provider.__name__, g.get_nodes.__name__, g.get_vms.__name__, [o.value for o in g.Os])",
  ].join("; ");
  const { stdout } = await exec(python, ["-c", probe], { env: { ...process.env, PYTHONPATH: target } });
  expect(stdout.trim()).toBe("Vm Provider get_nodes get_vms ['debian', 'ubuntu', 'rockylinux']");
}, 300_000);
