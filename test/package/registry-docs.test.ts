// The pages the Pulumi Registry lays a provider out with: docs/_index.md
// (what it is, one example in each language) and
// docs/installation-configuration.md (install per language, configuration).
// Their examples run through the README's: each program of _index.md is, to
// the byte, one of the README's, which test/consumers/readme-programs.test.ts
// (YAML, Python, Go) and test/e2e/readme-snippets.test.ts (TypeScript, which
// also runs _index.md's own blocks) run through the engine.
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const blocks = (text: string) =>
  [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));

test("docs/_index.md has one example in each language, and each is a README program", () => {
  const readme = blocks(read("README.md")).map((b) => `${b.lang}\n${b.code}`);
  const examples = blocks(read("docs/_index.md"));
  expect([...new Set(examples.map((b) => b.lang))].sort()).toEqual(["go", "python", "ts", "yaml"]);
  for (const b of examples) expect([b.lang, readme.includes(`${b.lang}\n${b.code}`)]).toEqual([b.lang, true]);
});

test("docs/installation-configuration.md names the install of every package and every setting of the README", () => {
  const page = read("docs/installation-configuration.md");
  for (const install of [
    "npm install go-pve-qemu-pulumi",
    "npm install @go-pve-qemu/pulumi",
    "pip install pulumi_gopveqemu",
    "go get github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go",
    "pluginDownloadURL",
  ])
    expect([install, page.includes(install)]).toEqual([install, true]);
  const settings = [...read("README.md").matchAll(/^\| `goPveQemu:(\w+)`/gm)].map((m) => m[1]!);
  expect(settings.length).toBeGreaterThan(10);
  for (const key of settings) expect([key, page.includes(`goPveQemu:${key}`)]).toEqual([key, true]);
});
