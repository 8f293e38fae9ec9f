// One version, written once (package.json's): lint's versions check
// (scripts/versions.ts) passes on the checkout as it is, and fails on a copy
// of it whose schema, SDK or lock file says another version, or whose SDK
// downloads the plugin from elsewhere than the schema says, naming the file
// and both values. It also holds the words a user reads to the version:
// CHANGELOG.md's section and the README starter's range; and `npm run
// release` refuses a version CHANGELOG.md has no section for, before any work.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";
import { starterRange } from "../../scripts/versions";

const exec = promisify(execFile);
const script = path.join(ROOT, "dist", "scripts", "versions.js");
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-versions-"));
  for (const f of ["package.json", "package-lock.json", "schema", "sdk", "CHANGELOG.md", "README.md"])
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

test("a version CHANGELOG.md has no section for fails, naming the file and the version", async () => {
  edit("CHANGELOG.md", `\n## ${VERSION} (`, "\n## 9.9.9 (");
  expect(await failure()).toBe(
    `CHANGELOG.md: no section for ${VERSION} (a "## ${VERSION} (YYYY-MM-DD)" heading); ` +
      `cut the release with \`npm run cut -- ${VERSION}\`, which turns "Unreleased" into it\n`,
  );
});

test("a README starter that asks for a caret range on the version fails", async () => {
  // ^0.2.0 on a 0.x version means <0.3.0: the starter would never take the next minor.
  edit("README.md", `"${starterRange(VERSION)}"`, `"^${VERSION}"`);
  expect(await failure()).toBe(
    `README.md: the starter package.json asks for go-pve-qemu-pulumi ^${VERSION}, ` +
      `package.json's ${VERSION} wants "${starterRange(VERSION)}"\n`,
  );
});

test("npm run release refuses a version CHANGELOG.md has no section for, before any work", async () => {
  // The built release script in a root of its own (it finds the root by engine/versions.env above it):
  // package.json at a version the CHANGELOG does not know, the repository's node_modules linked.
  for (const d of ["scripts", "provider"])
    fs.cpSync(path.join(ROOT, "dist", d), path.join(dir, "dist", d), { recursive: true });
  fs.mkdirSync(path.join(dir, "engine"));
  fs.copyFileSync(path.join(ROOT, "engine", "versions.env"), path.join(dir, "engine", "versions.env"));
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  edit("package.json", `"version": "${VERSION}"`, '"version": "9.0.0"');
  edit("README.md", starterRange(VERSION), starterRange("9.0.0"));
  const out = path.join(dir, "out");
  const run = exec("node", [path.join(dir, "dist", "scripts", "release.js"), "--out", out], { cwd: dir });
  await expect(run).rejects.toMatchObject({ code: 1 });
  const { stderr } = (await run.catch((e: unknown) => e)) as { stderr: string };
  expect(stderr).toBe(
    "release: version 9.0.0 is not cut:\n" +
      'CHANGELOG.md: no section for 9.0.0 (a "## 9.0.0 (YYYY-MM-DD)" heading); ' +
      'cut the release with `npm run cut -- 9.0.0`, which turns "Unreleased" into it\n',
  );
  expect(fs.existsSync(out)).toBe(false);
});
