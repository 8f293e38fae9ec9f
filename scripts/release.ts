// Every artifact of one release, at package.json's version, in one folder:
//
//   go-pve-qemu-pulumi-<v>.tgz                     the dynamic provider's npm package (npm pack)
//   go-pve-qemu-pulumi-sdk-<v>.tgz                 the resource plugin's TypeScript SDK, @go-pve-qemu/pulumi
//   pulumi_gopveqemu-<v>-py3-none-any.whl, .tar.gz the Python SDK
//   goproxy/<module>/@v/...                        the Go SDK, as a module proxy serves it
//   pulumi-resource-gopveqemu-v<v>-linux-amd64.tar.gz, -linux-arm64.tar.gz
//                                                  the resource plugin, each with its platform's Node.js 22
//   release.json                                   the version, the download URL, the Go module path
//   SHA256SUMS                                     every file above (`sha256sum -c SHA256SUMS` in the folder)
//
//   npm run release [-- --download-url URL] [--out DIR]
//
// It refuses a version CHANGELOG.md has no section for (the cut, `npm run cut`, comes first).
// The SDKs are generated afresh from a schema whose pluginDownloadURL is URL
// (the project's release host for the tag by default: where the engine
// fetches the plugin when a program needs it), so the SDKs a release ships
// name the place its tarballs go. DIR (default dist/release/) is emptied
// first when it holds a previous release; any other non-empty folder is refused.
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { defaultDownloadUrl, packageSchema } from "../provider/package-schema";
import { ROOT } from "./engine-env";
import { pluginTarball } from "./plugin-tarball";
import { goSdk, nodejsSdk, pythonSdk } from "./release-sdks";
import { GO_ENV, PLATFORMS, cacheDir, nodeBinary, run, say } from "./release-tools";
import { notesProblems, versionProblems } from "./versions";

interface ReleaseOptions {
  out: string;
  downloadUrl?: string;
}

/** The release folder, emptied when it holds a previous release (or is the default one). */
function prepareOut(out: string): void {
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
    const previous = fs.existsSync(path.join(out, "SHA256SUMS")) || out === path.join(ROOT, "dist", "release");
    if (!previous) throw new Error(`${out} is not empty and holds no previous release: give an empty or new folder`);
    fs.rmSync(out, { recursive: true, force: true });
  }
  fs.mkdirSync(out, { recursive: true });
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join("/"))
    .sort();
}

function sha256(file: string): string {
  return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Makes the release; answers the folder. */
export function release(opts: ReleaseOptions): string {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  // Refused before any work: a release whose version CHANGELOG.md has no section for (or whose README
  // starter asks for another) was not cut (`npm run cut -- <version>`), and would ship undocumented.
  const notes = notesProblems(ROOT, version);
  if (notes.length > 0) throw new Error(`version ${version} is not cut:\n${notes.join("\n")}`);
  const downloadUrl = opts.downloadUrl ?? defaultDownloadUrl(version);
  const out = path.resolve(opts.out);
  say(`version ${version}, plugin download URL ${downloadUrl}, into ${out}`);
  const dirty = run("git", ["status", "--porcelain", "--untracked-files=no"]).trim();
  if (dirty !== "") say(`the checkout has changes not committed; the release is made from them:\n${dirty}`);
  prepareOut(out);
  // A copy of the checkout's versioned files with the release's schema and SDKs: the versions check reads it.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-release-"));
  try {
    for (const f of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(ROOT, f), path.join(work, f));
    const schemaFile = path.join(work, "schema", "schema.json");
    fs.mkdirSync(path.dirname(schemaFile));
    fs.writeFileSync(schemaFile, `${JSON.stringify(packageSchema(version, downloadUrl), null, 2)}\n`);
    const sdk = path.join(work, "sdk");
    say("generating the SDKs");
    run("bash", [path.join(ROOT, "scripts", "gen-sdk.sh"), "--schema", schemaFile, "--out", sdk], { env: GO_ENV });

    say("packing the dynamic provider's npm package (go-pve-qemu-pulumi)");
    run("npm", ["pack", "--silent", "--pack-destination", out]);
    nodejsSdk(sdk, work, out, version);
    pythonSdk(sdk, work, out);
    const goModule = goSdk(sdk, out, version);
    for (const { platform, nodePackage } of PLATFORMS) {
      say(`building the plugin tarball for ${platform} (Node.js from ${nodePackage})`);
      const tarball = pluginTarball({
        withNode: true,
        platform,
        nodeBinary: nodeBinary(nodePackage),
        schemaFile,
        outDir: path.join(cacheDir(), "release-plugin-tarballs"),
      });
      fs.copyFileSync(tarball, path.join(out, path.basename(tarball)));
    }
    const files = filesUnder(out);
    fs.writeFileSync(
      path.join(out, "release.json"),
      `${JSON.stringify({ version, pluginDownloadURL: downloadUrl, goModule, files }, null, 2)}\n`,
    );
    const sums = [...files, "release.json"].sort().map((f) => `${sha256(path.join(out, f))}  ${f}\n`);
    fs.writeFileSync(path.join(out, "SHA256SUMS"), sums.join(""));
    const problems = versionProblems({ root: work, release: out });
    if (problems.length > 0) throw new Error(`the release disagrees with package.json:\n${problems.join("\n")}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  say(`done: ${filesUnder(out).length} files, one version (${version})`);
  return out;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      "download-url": { type: "string" },
      out: { type: "string", default: path.join(ROOT, "dist", "release") },
    },
  });
  const url = values["download-url"];
  if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) throw new Error(`--download-url ${url}: not an http(s) URL`);
  process.stdout.write(`${release({ out: values.out, ...(url ? { downloadUrl: url.replace(/\/+$/, "") } : {}) })}\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stderr.write(`release: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
