// A loopback stand-in of the npm registry for the release's install-by-name
// tests: verdaccio (the npm registry's own server, pinned, installed once into
// the cache), with no uplink, so that an `npm install` against it gets what it
// holds or fails. What it holds besides the release's two packages: the
// exact dependency closure, from package-lock.json, of what an empty
// TypeScript project installs (@pulumi/pulumi, the dynamic provider's
// dependencies, typescript, @types/node), seeded once per lock file into a
// storage folder in the cache and copied for each registry started.
import { spawn, type ChildProcess } from "node:child_process";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { ROOT } from "../../scripts/engine-env";
import { freePort } from "../../scripts/ports";
import { cacheDir, run, say } from "../../scripts/release-tools";

const VERDACCIO = "verdaccio@6.8.0";
/** What an empty TypeScript project on either package installs beside it (the packages' own dependencies follow). */
const SEED_ROOTS = ["@pulumi/pulumi", "typescript", "@types/node"];

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const hashOf = (...parts: string[]): string =>
  crypto.createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 12);

/** verdaccio's command, installed by npm once into the cache (into a folder beside it, renamed into place when whole). */
function verdaccioBin(): string {
  const dir = path.join(cacheDir(), `release-${VERDACCIO.replace("@", "-")}`);
  if (!fs.existsSync(dir)) {
    say(`installing ${VERDACCIO} (first time only)`);
    const tmp = `${dir}.partial.${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix", tmp, VERDACCIO], { cwd: tmp });
    fs.renameSync(tmp, dir);
  }
  return path.join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
}

/** The lock's entries an install of `roots` needs: each root and, transitively, what it depends on, as node resolves it. */
function lockClosure(lock: { packages: Record<string, LockEntry> }, roots: string[]): Map<string, LockEntry> {
  const pkgs = lock.packages;
  const resolve = (from: string, name: string): string | undefined => {
    for (let base = from; ;) {
      const at = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
      if (pkgs[at]) return at;
      if (base === "") return undefined;
      const i = base.lastIndexOf("/node_modules/");
      base = i < 0 ? "" : base.slice(0, i);
    }
  };
  const found = new Map<string, LockEntry>();
  const visit = (from: string, name: string, required: boolean): void => {
    const at = resolve(from, name);
    if (at === undefined) {
      if (required) throw new Error(`package-lock.json holds no ${name} for ${from || "the root"}`);
      return;
    }
    if (found.has(at)) return;
    const entry = pkgs[at]!;
    if (entry.link) throw new Error(`package-lock.json links ${at}: not a registry package`);
    found.set(at, entry);
    for (const d of Object.keys(entry.dependencies ?? {})) visit(at, d, true);
    for (const d of Object.keys(entry.optionalDependencies ?? {})) visit(at, d, false);
    // npm installs peers too; an optional peer only when something else brings it.
    for (const d of Object.keys(entry.peerDependencies ?? {}))
      if (!entry.peerDependenciesMeta?.[d]?.optional) visit(at, d, false);
  };
  for (const r of roots) visit("", r, true);
  return found;
}

/** The package.json inside an npm tarball (its top folder is not always `package/`). */
function manifestOf(tgz: Buffer): Record<string, unknown> {
  const tar = zlib.gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length;) {
    const field = (from: number, len: number) =>
      tar
        .subarray(at + from, at + from + len)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const name = field(0, 100);
    if (name === "") break;
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const full = field(345, 155) ? `${field(345, 155)}/${name}` : name;
    if (/^[^/]+\/package\.json$/.test(full) && ["0", ""].includes(field(156, 1)))
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString("utf8")) as Record<string, unknown>;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error("an npm tarball without package.json");
}

/** Publishes one tarball through the registry's publish call, as `npm publish` sends it. */
async function put(url: string, token: string, tgz: Buffer): Promise<void> {
  const manifest = manifestOf(tgz);
  const name = manifest.name as string;
  const version = manifest.version as string;
  const file = `${name}-${version}.tgz`;
  const body = {
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          tarball: `${url}/${name}/-/${file}`,
          shasum: crypto.createHash("sha1").update(tgz).digest("hex"),
          integrity: `sha512-${crypto.createHash("sha512").update(tgz).digest("base64")}`,
        },
      },
    },
    _attachments: {
      [file]: { content_type: "application/octet-stream", data: tgz.toString("base64"), length: tgz.length },
    },
  };
  const res = await fetch(`${url}/${name.replace("/", "%2f")}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`publishing ${name}@${version}: ${res.status} ${await res.text()}`);
}

const semverKey = (v: string) => v.split(/[.+-]/).map((p) => (/^\d+$/.test(p) ? p.padStart(8, "0") : p));

/** verdaccio's storage holding the lock's closure of SEED_ROOTS and `extraRoots`, made once per lock file. */
async function seededStorage(extraRoots: string[]): Promise<string> {
  const lockText = fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8");
  const roots = [...SEED_ROOTS, ...extraRoots].sort();
  const dir = path.join(cacheDir(), `release-npm-seed-${hashOf(lockText, VERDACCIO, ...roots)}`);
  if (fs.existsSync(dir)) return path.join(dir, "storage");
  const started = Date.now();
  const entries = [...lockClosure(JSON.parse(lockText), roots).entries()];
  const tmp = `${dir}.partial.${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const tarballs = path.join(tmp, "tarballs");
  fs.mkdirSync(tarballs, { recursive: true });
  say(`seeding the npm stand-in with ${entries.length} packages from package-lock.json (first time for this lock)`);
  // Each name@version the lock holds, from npm's cache when it has them (it does after `npm ci`).
  const specs = [
    ...new Set(
      entries.map(([at, e]) => `${at.slice(at.lastIndexOf("node_modules/") + "node_modules/".length)}@${e.version}`),
    ),
  ];
  const packed = JSON.parse(
    run("npm", ["pack", "--json", "--prefer-offline", "--pack-destination", tarballs, ...specs], { cwd: tmp }),
  ) as { name: string; version: string; filename: string; integrity: string }[];
  // The exact closure: each tarball is the one the lock names (its integrity).
  const wanted = new Set(entries.map(([, e]) => e.integrity));
  const other = packed.filter((p) => !wanted.has(p.integrity)).map((p) => `${p.name}@${p.version}`);
  if (other.length > 0) throw new Error(`tarballs other than package-lock.json's: ${other.join(", ")}`);
  const registry = await startRegistry(tmp, path.join(tmp, "storage"));
  try {
    // Oldest first per package, so that `latest` is the newest version the lock holds.
    packed.sort((a, b) => (semverKey(a.version) < semverKey(b.version) ? -1 : 1));
    for (const p of packed)
      await put(
        registry.url,
        registry.token,
        fs.readFileSync(path.join(tarballs, p.filename.replace(/^@/, "").replace("/", "-"))),
      );
  } finally {
    await registry.close();
  }
  fs.rmSync(tarballs, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
  say(`seeded ${packed.length} packages in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return path.join(dir, "storage");
}

export interface NpmRegistry {
  /** The registry's URL (no trailing slash). */
  url: string;
  /** A publisher's token. */
  token: string;
  /** An npm user config naming the registry and the token (for `npm publish --userconfig`). */
  npmrc: string;
  close(): Promise<void>;
}

/** verdaccio on loopback over `storage` (made when missing), its config and users under `dir`, with no uplink. */
async function startRegistry(dir: string, storage: string): Promise<NpmRegistry> {
  fs.mkdirSync(storage, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = path.join(dir, "verdaccio.yaml");
  const access = "    access: $all\n    publish: $authenticated\n    unpublish: $authenticated\n";
  fs.writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(storage)}`,
      `auth:\n  htpasswd:\n    file: ${JSON.stringify(path.join(dir, "htpasswd"))}\n    max_users: 10`,
      // No uplinks: nothing is fetched from any other registry.
      "uplinks: {}",
      `packages:\n  "@*/*":\n${access}  "**":\n${access}`,
      "web:\n  enable: false",
      "max_body_size: 256mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(process.execPath, [verdaccioBin(), "--config", config, "--listen", url], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill();
    });
  try {
    for (let i = 0; ; i++) {
      const up = await fetch(`${url}/-/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 150 || child.exitCode !== null) throw new Error(`verdaccio did not answer at ${url}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const res = await fetch(`${url}/-/user/org.couchdb.user:release`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "release", password: "release-test-only" }),
    });
    const { token } = (await res.json()) as { token?: string };
    if (!res.ok || token === undefined) throw new Error(`verdaccio made no user: ${res.status}`);
    const npmrc = path.join(dir, "publish.npmrc");
    fs.writeFileSync(npmrc, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, token, npmrc, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The npm stand-in for a test, under `dir`: a copy of the seeded storage
 * (the dependency closure), then the release's two npm packages (from the
 * release folder `out`) published by `npm publish`, as the release workflow does.
 */
export async function npmStandIn(dir: string, out: string, version: string): Promise<NpmRegistry> {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const seed = await seededStorage(Object.keys(pkg.dependencies));
  const storage = path.join(dir, "npm-storage");
  fs.cpSync(seed, storage, { recursive: true });
  const registry = await startRegistry(dir, storage);
  try {
    for (const f of [`go-pve-qemu-pulumi-${version}.tgz`, `go-pve-qemu-pulumi-sdk-${version}.tgz`])
      run("npm", ["publish", "--access", "public", "--userconfig", registry.npmrc, path.join(out, f)], {
        cwd: dir,
        env: npmEnv({ npm_config_cache: path.join(dir, "npm-publish-cache") }),
      });
  } catch (err) {
    await registry.close();
    throw err;
  }
  return registry;
}

/** This process's environment without any npm setting an outer `npm run` or `npx` left in it, plus `extra`. */
export function npmEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false", ...extra };
}
