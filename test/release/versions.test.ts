// One version, written once (package.json's): lint's versions check
// (scripts/versions.ts) passes on the checkout as it is, and fails on a copy
// of it whose schema, SDK or lock file says another version, or whose SDK
// downloads the plugin from elsewhere than the schema says, naming the file
// and both values.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);
const script = path.join(ROOT, "dist", "scripts", "versions.js");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-versions-"));
  for (const f of ["package.json", "package-lock.json", "schema", "sdk"])
    fs.cpSync(path.join(ROOT, f), path.join(dir, f), { recursive: true });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The check's failure output on the copy (the test fails when the check passes). */
async function failure(): Promise<string> {
  const run = exec("node", [script, "--check", "--root", dir]);
  await expect(run).rejects.toMatchObject({ code: 1 });
  return ((await run.catch((e: unknown) => e)) as { stderr: string }).stderr;
}

function edit(file: string, from: string, to: string): void {
  const full = path.join(dir, file);
  const text = fs.readFileSync(full, "utf8");
  expect(text).toContain(from);
  fs.writeFileSync(full, text.replace(from, to));
}

test("the checkout agrees with itself", async () => {
  const { stdout } = await exec("node", [script, "--check"]);
  expect(stdout).toContain(`all say ${VERSION}`);
  await expect(exec("node", [script, "--check", "--root", dir])).resolves.toBeDefined();
});

test("an SDK at another version fails, naming the file and both versions", async () => {
  edit("sdk/python/pyproject.toml", `version = "${VERSION}"`, 'version = "9.8.7"');
  edit("sdk/go/gopveqemu/internal/pulumiUtilities.go", `MustParse("${VERSION}")`, 'MustParse("9.8.6")');
  const out = await failure();
  expect(out).toContain(`sdk/python/pyproject.toml: [project] version is 9.8.7, package.json has ${VERSION}\n`);
  expect(out).toContain(
    `sdk/go/gopveqemu/internal/pulumiUtilities.go: semver.MustParse is 9.8.6, package.json has ${VERSION}\n`,
  );
  expect(out.trim().split("\n")).toHaveLength(2);
});

test("a version bump in package.json alone fails on every file that still carries the old one", async () => {
  edit("package.json", `"version": "${VERSION}"`, '"version": "9.0.0"');
  const out = await failure();
  for (const file of [
    "package-lock.json",
    "schema/schema.json",
    "sdk/nodejs/package.json",
    "sdk/python/pyproject.toml",
    "sdk/python/pulumi_gopveqemu/_utilities.py",
    "sdk/python/pulumi_gopveqemu/pulumi-plugin.json",
    "sdk/go/gopveqemu/pulumi-plugin.json",
    "sdk/go/gopveqemu/internal/pulumiUtilities.go",
  ])
    expect(out).toContain(`${file}: `);
  expect(out).toContain(`schema/schema.json: version is ${VERSION}, package.json has 9.0.0\n`);
});

test("an SDK whose download URL is not the schema's fails", async () => {
  const url = (JSON.parse(fs.readFileSync(path.join(ROOT, "schema", "schema.json"), "utf8")) as Record<string, string>)
    .pluginDownloadURL!;
  edit("sdk/nodejs/package.json", `"server": "${url}"`, '"server": "https://elsewhere.invalid/x"');
  const out = await failure();
  expect(out).toBe(
    `sdk/nodejs/package.json: pulumi.server is https://elsewhere.invalid/x, schema/schema.json's pluginDownloadURL is ${url}\n`,
  );
});
