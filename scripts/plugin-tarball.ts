// Builds the resource plugin's release tarball, the file a user installs with
//   pulumi plugin install resource gopveqemu <version> --file <tarball>
// The engine unpacks it into $PULUMI_HOME/plugins/resource-gopveqemu-v<version>/
// and starts the `pulumi-resource-gopveqemu` at its root. So the root holds the
// launcher, package.json, the built provider (dist/provider/), the schema, and
// every package the plugin loads at run time under node_modules/: the
// package's dependencies and @pulumi/pulumi (a peer dependency of the npm
// package, which a user's project brings; a plugin has no project around it),
// each with the packages it needs, copied from this checkout's node_modules at
// the same relative paths, so Node.js resolves each of them as it does here.
// Node.js 22 comes too, as node_modules/.bin/node (the npm `node` package's
// binary, where the launcher looks first), so the plugin runs on a machine
// whose own Node.js is older; `--no-node` leaves it out (then the launcher
// runs `node` on PATH, which must be 22.19 or later).
//
//   npm run plugin-tarball [-- --no-node]
//
// The release (scripts/release.ts) builds one per platform, each with the
// Node.js of that platform (`nodeBinary`), and its own schema file.
//
// Prints the tarball's path. A tarball built from the same inputs is kept
// (dist/release/<name>.inputs holds their hash), so a second run answers at once.
import { execFileSync } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "./engine-env";

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const RUNTIME_PEERS = ["@pulumi/pulumi"];
const LAUNCHER = path.join(ROOT, "bin", "pulumi-resource-gopveqemu");
const NODE_BINARY = path.join(ROOT, "node_modules", "node", "bin", "node");

function manifest(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest;
}

/** Where Node.js finds package `name` required from `from`: the nearest node_modules/<name> up to ROOT. */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      const candidate = path.join(dir, "node_modules", name);
      if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    }
    if (dir === ROOT || path.dirname(dir) === dir) return undefined;
  }
}

/** The packages a package needs at run time, by name, each with whether it may be missing. */
function needs(m: Manifest): [string, boolean][] {
  const peers = Object.keys(m.peerDependencies ?? {}).filter((p) => !m.peerDependenciesMeta?.[p]?.optional);
  return [
    ...Object.keys(m.dependencies ?? {}).map((d): [string, boolean] => [d, false]),
    ...peers.map((d): [string, boolean] => [d, false]),
    ...Object.keys(m.optionalDependencies ?? {}).map((d): [string, boolean] => [d, true]),
  ];
}

/** Every package folder (relative to ROOT) the plugin loads at run time, the package's own dependencies first. */
function runtimePackages(): string[] {
  const own = manifest(ROOT);
  const found = new Set<string>();
  const queue: [string, string, boolean][] = [
    ...needs({ ...own, peerDependencies: {} }).map(([n, opt]): [string, string, boolean] => [n, ROOT, opt]),
    ...RUNTIME_PEERS.map((n): [string, string, boolean] => [n, ROOT, false]),
  ];
  while (queue.length > 0) {
    const [name, from, optional] = queue.shift()!;
    const dir = resolvePackage(name, from);
    if (dir === undefined) {
      if (optional) continue;
      throw new Error(`${name}, needed by ${path.relative(ROOT, from) || "the package"}, is not installed: run npm ci`);
    }
    const rel = path.relative(ROOT, dir);
    if (found.has(rel)) continue;
    found.add(rel);
    for (const [dep, opt] of needs(manifest(dir))) queue.push([dep, dir, opt]);
  }
  return [...found].sort();
}

/** The files the tarball is made from, relative to ROOT (node_modules apart). */
function ownFiles(): string[] {
  const dist = path.join(ROOT, "dist", "provider");
  if (!fs.existsSync(path.join(dist, "plugin", "entry.js")))
    throw new Error("dist/provider is not built: npm run build");
  const under = (d: string) =>
    (fs.readdirSync(path.join(ROOT, d), { recursive: true }) as string[])
      .map((f) => path.join(d, f))
      .filter((f) => fs.statSync(path.join(ROOT, f)).isFile());
  return ["package.json", ...under(path.join("dist", "provider")), ...under("schema")].sort();
}

/** What a tarball is built from beyond this checkout: the platform, its Node.js binary (none: `node` on PATH), the schema. */
export interface TarballOptions {
  withNode: boolean;
  /** The Pulumi platform name (linux-amd64); this machine's by default. */
  platform?: string;
  /** The Node.js 22 binary it brings; this checkout's (node_modules/node) by default. */
  nodeBinary?: string;
  /** The schema file it holds as schema/schema.json; this checkout's by default. */
  schemaFile?: string;
  /** Where it is written; dist/release/ by default. */
  outDir?: string;
}

/** A hash of everything that goes in: own files, the lockfile (the packages' versions), the launcher, the options. */
function inputsHash(files: string[], opts: TarballOptions): string {
  const h = crypto.createHash("sha256");
  h.update(`node:${opts.withNode}\n`);
  if (opts.withNode && opts.nodeBinary) h.update(`${opts.nodeBinary}:${fs.statSync(opts.nodeBinary).size}\n`);
  if (opts.schemaFile) h.update("schema\n").update(fs.readFileSync(opts.schemaFile));
  for (const f of [...files, "package-lock.json", path.join("bin", "pulumi-resource-gopveqemu")])
    h.update(`${f}\n`).update(fs.readFileSync(path.join(ROOT, f)));
  return h.digest("hex");
}

/** The Pulumi platform name of this machine, as release tarballs are named (linux-amd64, darwin-arm64). */
export function platform(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  return `${process.platform}-${arch}`;
}

function stage(dir: string, files: string[], opts: TarballOptions): void {
  fs.copyFileSync(LAUNCHER, path.join(dir, "pulumi-resource-gopveqemu"));
  fs.chmodSync(path.join(dir, "pulumi-resource-gopveqemu"), 0o755);
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  if (opts.schemaFile) fs.copyFileSync(opts.schemaFile, path.join(dir, "schema", "schema.json"));
  for (const pkg of runtimePackages()) {
    const source = path.join(ROOT, pkg);
    // A package's own node_modules holds other packages: those it needs are in the list themselves.
    fs.cpSync(source, path.join(dir, pkg), {
      recursive: true,
      dereference: true,
      filter: (src) => !src.startsWith(path.join(source, "node_modules")),
    });
  }
  if (opts.withNode) {
    const node = opts.nodeBinary ?? NODE_BINARY;
    if (!fs.existsSync(node)) throw new Error(`no Node.js binary at ${node}: run npm ci`);
    // A plain file, not the symlink npm makes: an unpacked tarball keeps it as it is.
    fs.mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true });
    fs.copyFileSync(node, path.join(dir, "node_modules", ".bin", "node"));
    fs.chmodSync(path.join(dir, "node_modules", ".bin", "node"), 0o755);
  }
}

/** Builds the tarball (or finds the one built from the same inputs) and answers its path. */
export function pluginTarball(opts: TarballOptions): string {
  const { version } = manifest(ROOT);
  const files = ownFiles();
  const release = opts.outDir ?? path.join(ROOT, "dist", "release");
  const name = `pulumi-resource-gopveqemu-v${version}-${opts.platform ?? platform()}${opts.withNode ? "" : "-no-node"}`;
  const tarball = path.join(release, `${name}.tar.gz`);
  const stamp = path.join(release, `${name}.inputs`);
  const hash = inputsHash(files, opts);
  if (fs.existsSync(tarball) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash) return tarball;
  fs.mkdirSync(release, { recursive: true });
  const staging = fs.mkdtempSync(path.join(release, `.staging-${name}-`));
  try {
    stage(staging, files, opts);
    const partial = `${tarball}.${process.pid}.partial`;
    execFileSync("tar", ["-czf", partial, "-C", staging, ...fs.readdirSync(staging).sort()]);
    // Renamed into place only once whole, so a reader never sees half a tarball.
    fs.renameSync(partial, tarball);
    fs.writeFileSync(stamp, hash);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return tarball;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => a !== "--no-node");
  if (unknown.length > 0) {
    process.stderr.write(`plugin-tarball: unknown argument ${unknown.join(" ")} (allowed: --no-node)\n`);
    process.exit(2);
  }
  process.stdout.write(`${pluginTarball({ withNode: !args.includes("--no-node") })}\n`);
}
