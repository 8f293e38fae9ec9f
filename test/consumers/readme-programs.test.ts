// The README's first programs on the resource plugin, as a user copies
// them: the YAML one and the Python one `up` their VM against the simulator
// and `destroy` it; the Go one builds against the SDK (Go programs run here
// as Automation API inline programs only: the Go language host cannot be
// fetched). The TypeScript ones run in test/e2e/readme-snippets.test.ts.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pythonDriver, yamlDriver } from "./drivers";
import { ensureConsumer, newConsumer, type Consumer, type Driver } from "./harness";

jest.setTimeout(600_000);

const ROOT = path.join(__dirname, "..", "..");
const README = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

/** The README's first block in `lang` whose text has `marker`. */
function snippet(lang: string, marker: string): string {
  const block = [...README.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].find(
    (m) => m[1] === lang && m[2]!.includes(marker),
  );
  if (!block) throw new Error(`README: no \`\`\`${lang} block with ${marker}`);
  return block[2]!;
}

let scratch: string;
let consumer: Consumer | undefined;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-readme-programs-"));
});
afterEach(async () => {
  await consumer?.dispose();
  consumer = undefined;
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** up the program: one VM `web` with the README's inputs, its IP an output; then destroy. */
async function upAndDestroy(driver: Driver): Promise<void> {
  consumer = await newConsumer(driver);
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint });
  const up = await consumer.run("up");
  expect(up.code).toBe(0);
  const vms = consumer.sim.vms();
  expect(vms.map((v) => ({ cpu: v.cpu, os: v.os, version: v.version }))).toEqual([
    { cpu: 2, os: "ubuntu", version: "24.04" },
  ]);
  expect(up.output).toContain(vms[0]!.ip);
  expect((await consumer.run("destroy")).code).toBe(0);
  expect(consumer.sim.vms()).toEqual([]);
}

test("the YAML program ups its VM and destroys it", async () => {
  const dir = path.join(scratch, "yaml");
  fs.mkdirSync(dir);
  // The release it names is this checkout's; this checkout's plugin is on PATH, so nothing is downloaded.
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), snippet("yaml", "gopveqemu:Vm").replaceAll("<version>", version));
  await upAndDestroy(yamlDriver(dir));
});

test("the Python program ups its VM and destroys it", async () => {
  const file = path.join(scratch, "__main__.py");
  fs.writeFileSync(file, snippet("python", "gopveqemu.Vm("));
  await upAndDestroy(pythonDriver(file));
});

test("the Go program builds against the Go SDK", () => {
  // The Go consumer's module (its requirements, the replace to sdk/go) with the README's main.go.
  ensureConsumer("go");
  const dir = path.join(scratch, "go");
  fs.mkdirSync(dir);
  const mod = fs
    .readFileSync(path.join(ROOT, "test", "consumers", "go", "go.mod"), "utf8")
    .replace("=> ../../../sdk/go", `=> ${path.join(ROOT, "sdk", "go")}`);
  fs.writeFileSync(path.join(dir, "go.mod"), mod);
  fs.copyFileSync(path.join(ROOT, "test", "consumers", "go", "go.sum"), path.join(dir, "go.sum"));
  fs.writeFileSync(path.join(dir, "main.go"), snippet("go", "gopveqemu.NewVm("));
  const env = { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off", GOTOOLCHAIN: "local" };
  execFileSync("go", ["build", "-trimpath", "-o", os.devNull, "."], { cwd: dir, env, stdio: "pipe" });
  // And the check can fail: a wrong field is refused.
  fs.writeFileSync(path.join(dir, "main.go"), snippet("go", "gopveqemu.NewVm(").replace("Cpu:", "Cores:"));
  expect(() =>
    execFileSync("go", ["build", "-trimpath", "-o", os.devNull, "."], { cwd: dir, env, stdio: "pipe" }),
  ).toThrow(/unknown field Cores/);
});
