// The release cut, a step of its own before `npm run release` and the tag:
//
//   npm run cut -- 0.3.0 [--date 2026-12-07] [--no-generate]
//
// writes the version everywhere it is written by hand, then has the rest made
// from it:
// - package.json's "version" and package-lock.json's two root entries (edited
//   in place: `npm install --package-lock-only` would ask the registry);
// - CHANGELOG.md: "## Unreleased" becomes "## <version> (<date>)" (today in
//   UTC by default) below a new, empty "## Unreleased", so what lands next
//   has its heading;
// - the README's starter package.json: go-pve-qemu-pulumi ">=<version> <N.0.0"
//   (a caret on 0.x would pin the minor);
// - then `npm run schema` and `npm run gen-sdk` (the schema's version and
//   pluginDownloadURL, each SDK), unless --no-generate, and the versions
//   check (scripts/versions.ts --check), which holds all of the above.
// It refuses a version that is not x.y.z[-pre], the current one, one the
// CHANGELOG already has a section for, and a CHANGELOG with no Unreleased.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "./engine-env";
import { starterRange } from "./versions";

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?$/;

/** Replaces `re`'s one match in `text` (its first group kept) by `to`; throws, naming `file`, when it matches other than once. */
function replaceOnce(text: string, re: RegExp, to: string, file: string): string {
  const found = text.match(new RegExp(re.source, `${re.flags.replace("g", "")}g`))?.length ?? 0;
  if (found !== 1) throw new Error(`${file}: expected one ${re} to rewrite, found ${found}`);
  return text.replace(re, `$1${to}`);
}

/** CHANGELOG.md's text with "## Unreleased" turned into `version`'s dated section, under a new empty Unreleased. */
export function cutChangelog(text: string, version: string, date: string): string {
  if (new RegExp(`^## ${version.replace(/\./g, "\\.")}(?: |$)`, "m").test(text))
    throw new Error(`CHANGELOG.md: already has a section for ${version}`);
  return replaceOnce(text, /^(## Unreleased\n)/m, `\n## ${version} (${date})\n`, "CHANGELOG.md");
}

/** Writes `version` into package.json, package-lock.json, CHANGELOG.md and the README under `root`; answers the old version. */
export function setVersion(root: string, version: string, date: string): string {
  if (!SEMVER.test(version)) throw new Error(`${version}: not a version (x.y.z or x.y.z-pre)`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`--date ${date}: not YYYY-MM-DD`);
  const read = (f: string) => fs.readFileSync(path.join(root, f), "utf8");
  const old = (JSON.parse(read("package.json")) as { version: string }).version;
  if (old === version) throw new Error(`package.json is at ${version} already`);
  // Every text is made before any is written: a refusal leaves the checkout as it was.
  const texts: Record<string, string> = {
    // The top level's "version" is the only one at two spaces' indentation.
    "package.json": replaceOnce(read("package.json"), /^( {2}"version": )"[^"]*"/m, `"${version}"`, "package.json"),
    // The lock's own "version", then its root package's (packages[""], the first entry).
    "package-lock.json": replaceOnce(
      replaceOnce(read("package-lock.json"), /^( {2}"version": )"[^"]*"/m, `"${version}"`, "package-lock.json"),
      /^( {4}"": \{\n(?: {6}.*\n)*? {6}"version": )"[^"]*"/m,
      `"${version}"`,
      "package-lock.json",
    ),
    "CHANGELOG.md": cutChangelog(read("CHANGELOG.md"), version, date),
    "README.md": replaceOnce(
      read("README.md"),
      /("go-pve-qemu-pulumi": )"[^"]*"/,
      `"${starterRange(version)}"`,
      "README.md",
    ),
  };
  for (const [file, text] of Object.entries(texts)) fs.writeFileSync(path.join(root, file), text);
  return old;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      date: { type: "string", default: new Date().toISOString().slice(0, 10) },
      "no-generate": { type: "boolean", default: false },
    },
  });
  if (positionals.length !== 1) throw new Error("usage: npm run cut -- <version> [--date YYYY-MM-DD] [--no-generate]");
  const version = positionals[0]!;
  const old = setVersion(ROOT, version, values.date);
  process.stderr.write(`cut: ${old} -> ${version} (${values.date}): package.json, the lock, CHANGELOG.md, README.md\n`);
  if (values["no-generate"]) return;
  const npm = (...args: string[]) => execFileSync("npm", ["run", "-s", ...args], { cwd: ROOT, stdio: "inherit" });
  npm("schema");
  npm("gen-sdk");
  execFileSync("node", [path.join(ROOT, "dist", "scripts", "versions.js"), "--check"], { cwd: ROOT, stdio: "inherit" });
  process.stderr.write(`cut: ${version} is cut; review the diff, commit, then npm run release and tag v${version}\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`cut: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
