// One version, written once: package.json's "version". Everything else that
// carries it is made from it (the schema by scripts/schema.ts, the SDKs by
// scripts/gen-sdk.sh, the release's artifacts by scripts/release.ts), and
// this check fails when any of them says another, naming the file and both
// versions. It also holds each SDK to the schema's pluginDownloadURL, so the
// engine fetches the plugin from where the schema says. And the words a user
// reads name the version too: CHANGELOG.md has its section (`npm run release`
// refuses a version without one), and the README's starter package.json asks
// for a range from it (scripts/cut.ts writes both).
//
//   node dist/scripts/versions.js --check                 the checkout (lint)
//   node dist/scripts/versions.js --check --release DIR   and a release folder
//   --root DIR                                            another checkout (tests)
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "./engine-env";

/** A value found in a file: its file (relative to the root), what it is, and the value. */
interface Found {
  file: string;
  what: string;
  value: string | undefined;
}

const json = (root: string, file: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(path.join(root, file), "utf8")) as Record<string, unknown>;

/** Every match of `re`'s first group in a text file (none when the file is missing). */
function matches(root: string, file: string, re: RegExp): string[] {
  const full = path.join(root, file);
  if (!fs.existsSync(full)) return [];
  return [...fs.readFileSync(full, "utf8").matchAll(re)].map((m) => m[1]!);
}

/** Each value a text file gives for `what` (one "not found" when it gives none). */
function inText(root: string, file: string, what: string, re: RegExp): Found[] {
  const values = matches(root, file, re);
  return values.length === 0 ? [{ file, what, value: undefined }] : values.map((value) => ({ file, what, value }));
}

function field(obj: Record<string, unknown>, ...keys: string[]): string | undefined {
  let v: unknown = obj;
  for (const k of keys) v = typeof v === "object" && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** The versions the checkout's files carry, each of which must be package.json's. */
function versionsIn(root: string): Found[] {
  const lock = json(root, "package-lock.json");
  const schema = json(root, "schema/schema.json");
  const npm = json(root, "sdk/nodejs/package.json");
  const found: Found[] = [
    { file: "package-lock.json", what: "version", value: field(lock, "version") },
    { file: "package-lock.json", what: 'packages[""].version', value: field(lock, "packages", "", "version") },
    { file: "schema/schema.json", what: "version", value: field(schema, "version") },
    { file: "sdk/nodejs/package.json", what: "version", value: field(npm, "version") },
    { file: "sdk/nodejs/package.json", what: "pulumi.version", value: field(npm, "pulumi", "version") },
  ];
  for (const file of ["sdk/python/pulumi_gopveqemu/pulumi-plugin.json", "sdk/go/gopveqemu/pulumi-plugin.json"])
    found.push({ file, what: "version", value: field(json(root, file), "version") });
  const text: [string, string, RegExp][] = [
    ["sdk/python/pyproject.toml", "[project] version", /^\s*version\s*=\s*"([^"]*)"/gm],
    ["sdk/python/pulumi_gopveqemu/_utilities.py", "get_version()", /def get_version\(\):\s*return "([^"]*)"/g],
    ["sdk/go/gopveqemu/internal/pulumiUtilities.go", "semver.MustParse", /semver\.MustParse\("([^"]*)"\)/g],
  ];
  found.push(...text.flatMap(([file, what, re]) => inText(root, file, what, re)));
  return found;
}

/** Where each SDK tells the engine to download the plugin from, each of which must be the schema's. */
function downloadUrlsIn(root: string): Found[] {
  const npm = json(root, "sdk/nodejs/package.json");
  const found: Found[] = [
    { file: "sdk/nodejs/package.json", what: "pulumi.server", value: field(npm, "pulumi", "server") },
  ];
  for (const file of ["sdk/python/pulumi_gopveqemu/pulumi-plugin.json", "sdk/go/gopveqemu/pulumi-plugin.json"])
    found.push({ file, what: "server", value: field(json(root, file), "server") });
  const py = matches(
    root,
    "sdk/python/pulumi_gopveqemu/_utilities.py",
    /def get_plugin_download_url\(\):\s*return "([^"]*)"/g,
  );
  found.push({ file: "sdk/python/pulumi_gopveqemu/_utilities.py", what: "get_plugin_download_url()", value: py[0] });
  const text: [string, string, RegExp][] = [
    ["sdk/nodejs/utilities.ts", "resourceOptsDefaults()", /pluginDownloadURL: "([^"]*)"/g],
    [
      "sdk/go/gopveqemu/internal/pulumiUtilities.go",
      "pulumi.PluginDownloadURL",
      /pulumi\.PluginDownloadURL\("([^"]*)"\)/g,
    ],
  ];
  found.push(...text.flatMap(([file, what, re]) => inText(root, file, what, re)));
  return found;
}

/** The version part (x.y.z, with any pre-release) a release file's name carries, when it carries one. */
function versionInName(name: string, version: string): string | undefined {
  if (name.includes(version)) return version;
  return /\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?/.exec(name)?.[0];
}

/** The versions a release folder's files carry: their names (as SHA256SUMS lists them), the Go proxy's list, release.json. */
function versionsInRelease(dir: string): Found[] {
  const sums = path.join(dir, "SHA256SUMS");
  if (!fs.existsSync(sums)) return [{ file: sums, what: "file", value: undefined }];
  const version = field(json(dir, "release.json"), "version");
  const found: Found[] = [{ file: path.join(dir, "release.json"), what: "version", value: version }];
  for (const line of fs.readFileSync(sums, "utf8").split("\n").filter(Boolean)) {
    const rel = line.replace(/^[0-9a-f]{64} {2}/, "");
    const name = path.basename(rel);
    if (name === "list") {
      for (const v of fs.readFileSync(path.join(dir, rel), "utf8").split("\n").filter(Boolean))
        found.push({ file: path.join(dir, rel), what: "listed version", value: v.replace(/^v/, "") });
    } else if (name !== "release.json") {
      found.push({ file: path.join(dir, rel), what: "name", value: versionInName(name, version ?? "") });
    }
  }
  return found;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The README starter's range for the dynamic provider at `version`: from it, up to the next major (0.x: below 1.0.0). */
export function starterRange(version: string): string {
  return `>=${version} <${Number(version.split(".")[0]) + 1}.0.0`;
}

/**
 * What CHANGELOG.md and the README say of `version`, as problems: no
 * `## <version>` heading (dated, `## 0.2.0 (2026-12-07)`, or not) in
 * CHANGELOG.md, or a README starter that asks for another range.
 */
export function notesProblems(root: string, version: string): string[] {
  const problems: string[] = [];
  const changelog = path.join(root, "CHANGELOG.md");
  const text = fs.existsSync(changelog) ? fs.readFileSync(changelog, "utf8") : "";
  if (!new RegExp(`^## ${escape(version)}(?: \\(\\d{4}-\\d{2}-\\d{2}\\))?$`, "m").test(text))
    problems.push(
      `CHANGELOG.md: no section for ${version} (a "## ${version} (YYYY-MM-DD)" heading); ` +
        `cut the release with \`npm run cut -- ${version}\`, which turns "Unreleased" into it`,
    );
  const [asked] = matches(root, "README.md", /"go-pve-qemu-pulumi": "([^"]*)"/g);
  if (asked !== starterRange(version))
    problems.push(
      `README.md: the starter package.json asks for go-pve-qemu-pulumi ${asked ?? "nothing"}, ` +
        `package.json's ${version} wants "${starterRange(version)}"`,
    );
  return problems;
}

/** Each disagreement as "file: what is X, package.json has Y" (or the download URL's words). */
export function versionProblems(opts: { root?: string; release?: string } = {}): string[] {
  const root = opts.root ?? ROOT;
  const version = field(json(root, "package.json"), "version");
  if (version === undefined) return ["package.json: no version"];
  const problems: string[] = [];
  const found = [...versionsIn(root), ...(opts.release ? versionsInRelease(opts.release) : [])];
  for (const f of found) {
    if (f.value === undefined) problems.push(`${f.file}: no ${f.what} found (package.json has ${version})`);
    else if (f.value !== version) problems.push(`${f.file}: ${f.what} is ${f.value}, package.json has ${version}`);
  }
  const url = field(json(root, "schema/schema.json"), "pluginDownloadURL");
  for (const f of downloadUrlsIn(root)) {
    if (f.value !== url)
      problems.push(
        `${f.file}: ${f.what} is ${f.value ?? "missing"}, schema/schema.json's pluginDownloadURL is ${url}`,
      );
  }
  return problems;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      check: { type: "boolean", default: false },
      root: { type: "string" },
      release: { type: "string" },
    },
  });
  const root = values.root ? path.resolve(values.root) : ROOT;
  const { version } = json(root, "package.json") as { version: string };
  const problems = [
    ...versionProblems({ root, ...(values.release ? { release: path.resolve(values.release) } : {}) }),
    ...notesProblems(root, version),
  ];
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  console.log(
    `versions: package.json, package-lock.json, the schema and the three SDKs all say ${version}; ` +
      `CHANGELOG.md has its section, the README's starter asks for ${starterRange(version)}`,
  );
}

if (require.main === module) main();
