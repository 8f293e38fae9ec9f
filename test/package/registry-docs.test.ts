// The pages the Pulumi Registry lays a provider out with: docs/_index.md
// (what it is, one example in each language) and
// docs/installation-configuration.md (install per language, configuration).
// Their examples run through the README's: each program of _index.md is, to
// the byte, one of the README's, which test/consumers/readme-programs.test.ts
// (YAML, Python, Go) and test/e2e/readme-snippets.test.ts (TypeScript, which
// also runs _index.md's own blocks) run through the engine. The package
// schema's Vm description carries the same programs, and so each SDK's docs.
import * as fs from "node:fs";
import * as path from "node:path";
import { defaultDownloadUrl, packageSchema } from "../../provider/package-schema";
import { VM_TOKEN } from "../../provider/tokens";

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

// The Vm's description in the package schema: the same programs, by the fence each code generator keeps.
const FENCE: Record<string, string> = { ts: "typescript", python: "python", go: "go", yaml: "yaml" };
const sdkExamples = () =>
  blocks(read("docs/_index.md")).filter((b) => b.lang !== "ts" || b.code.includes('"@go-pve-qemu/pulumi"'));

test("the schema's Vm description carries _index.md's program in TypeScript, Python, Go and YAML, as Pulumi's examples", () => {
  const url = "http://127.0.0.1:9/plugins/v9.8.7";
  const description = packageSchema("9.8.7", url).resources[VM_TOKEN]!.description;
  expect(description).toMatch(/^A QEMU VM on a Proxmox VE cluster[^\n]*\n\n\{\{% examples %\}\}\n## Example Usage\n/);
  expect(description.trimEnd().endsWith("{{% /example %}}\n{{% /examples %}}")).toBe(true);
  const examples = sdkExamples();
  expect(examples.map((b) => FENCE[b.lang]).sort()).toEqual(["go", "python", "typescript", "yaml"]);
  for (const b of examples) {
    const named = b.code.replace(defaultDownloadUrl("<version>"), url).replaceAll("<version>", "9.8.7");
    expect([b.lang, description.includes(`\`\`\`${FENCE[b.lang]}\n${named}\`\`\``)]).toEqual([b.lang, true]);
  }
  // The schema as committed (and served by the plugin) is the one the SDKs were generated from.
  const committed = JSON.parse(read("schema/schema.json")) as ReturnType<typeof packageSchema>;
  expect(committed.resources[VM_TOKEN]!.description).toContain("```python\n# __main__.py\n");
});

test("each SDK's Vm documentation shows its own language's program, and no other", () => {
  const line = {
    typescript: 'const web = new gopveqemu.Vm("web", { os: "ubuntu", version: "24.04", cpu: 2 });',
    python: 'web = gopveqemu.Vm("web", os="ubuntu", version="24.04", cpu=2)',
    go: 'web, err := gopveqemu.NewVm(ctx, "web", &gopveqemu.VmArgs{',
  };
  const sdks = {
    typescript: read("sdk/nodejs/vm.ts"),
    python: read("sdk/python/pulumi_gopveqemu/vm.py"),
    go: read("sdk/go/gopveqemu/vm.go"),
  };
  for (const [lang, text] of Object.entries(sdks)) {
    for (const [other, code] of Object.entries(line)) {
      expect([lang, other, text.includes(code)]).toEqual([lang, other, lang === other]);
    }
  }
});
