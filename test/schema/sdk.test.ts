// The SDKs come from schema/schema.json through Pulumi's own code generators
// (engine/codegen, built with Go from Pulumi's published module): the schema
// binds as a Pulumi package schema, a broken one fails with the binder's
// words, regenerating gives the committed sdk/ byte for byte, and the
// TypeScript and Go SDKs compile as generated.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);
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
