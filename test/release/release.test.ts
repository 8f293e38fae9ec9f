// `npm run release` on a clean clone of this checkout (its committed files
// only; node_modules hard-linked, as a CI job restores it) makes every
// artifact of one version in the folder it is given: the file list is the
// documented one, SHA256SUMS verifies with sha256sum, the versions check
// passes on the folder, and --download-url reaches every SDK it packs.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

// A first run fetches Node.js for two platforms and Python's build into the cache.
jest.setTimeout(15 * 60_000);

const exec = promisify(execFile);
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const URL = "http://127.0.0.1:9/gopveqemu-test-releases";
const GO_MODULE = "github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go";

let dir: string;
let out: string;
let clone: string;
let log: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-release-"));
  clone = path.join(dir, "clone");
  out = path.join(dir, "out");
  await exec("git", ["clone", "--quiet", "--no-local", ROOT, clone]);
  await exec("cp", ["-al", path.join(ROOT, "node_modules"), path.join(clone, "node_modules")]);
  // npm's own record, newer than the clone's lock file (a copy, not a link): setup.sh sees no need for npm ci.
  fs.rmSync(path.join(clone, "node_modules", ".package-lock.json"));
  fs.copyFileSync(
    path.join(ROOT, "node_modules", ".package-lock.json"),
    path.join(clone, "node_modules", ".package-lock.json"),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: path.join(dir, "home"), GO_PVE_QEMU_SETUP_DONE: "" };
  // The cache of tools (Node.js per platform, Python's build, the code generator) is the machine's, as the engine's is.
  env.GO_PVE_QEMU_ENGINE_CACHE ??= path.join(os.homedir(), ".cache", "go-pve-qemu-pulumi");
  env.GOPATH ??= path.join(os.homedir(), "go");
  env.GOCACHE ??= path.join(os.homedir(), ".cache", "go-build");
  fs.mkdirSync(env.HOME!, { recursive: true });
  const { stdout, stderr } = await exec("npm", ["run", "-s", "release", "--", "--download-url", URL, "--out", out], {
    cwd: clone,
    env,
    maxBuffer: 256 * 1024 * 1024,
  });
  log = stderr;
  expect(stdout.trim()).toBe(out);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("every artifact, of one version, each checked by SHA256SUMS", async () => {
  const sums = fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8");
  const listed = sums
    .trim()
    .split("\n")
    .map((l) => l.split("  ")[1]);
  const at = `goproxy/${GO_MODULE}/@v`;
  expect(listed).toEqual(
    [
      `go-pve-qemu-pulumi-${VERSION}.tgz`,
      `go-pve-qemu-pulumi-sdk-${VERSION}.tgz`,
      `${at}/list`,
      `${at}/v${VERSION}.info`,
      `${at}/v${VERSION}.mod`,
      `${at}/v${VERSION}.zip`,
      `pulumi-resource-gopveqemu-v${VERSION}-linux-amd64.tar.gz`,
      `pulumi-resource-gopveqemu-v${VERSION}-linux-arm64.tar.gz`,
      `pulumi_gopveqemu-${VERSION}-py3-none-any.whl`,
      `pulumi_gopveqemu-${VERSION}.tar.gz`,
      "release.json",
    ].sort(),
  );
  const { stdout } = await exec("sha256sum", ["-c", "SHA256SUMS"], { cwd: out });
  expect(stdout.trim().split("\n")).toEqual(listed.map((f) => `${f}: OK`));
  // One flipped byte and the check says which file.
  const wheel = path.join(out, `pulumi_gopveqemu-${VERSION}-py3-none-any.whl`);
  const bytes = fs.readFileSync(wheel);
  bytes.writeUInt8(bytes.readUInt8(100) ^ 0xff, 100);
  fs.writeFileSync(wheel, bytes);
  await expect(exec("sha256sum", ["-c", "--quiet", "SHA256SUMS"], { cwd: out })).rejects.toMatchObject({
    stdout: expect.stringContaining(`pulumi_gopveqemu-${VERSION}-py3-none-any.whl: FAILED`),
  });
  bytes.writeUInt8(bytes.readUInt8(100) ^ 0xff, 100);
  fs.writeFileSync(wheel, bytes);
  const release = JSON.parse(fs.readFileSync(path.join(out, "release.json"), "utf8"));
  expect(release).toMatchObject({ version: VERSION, pluginDownloadURL: URL, goModule: GO_MODULE });
  await exec("node", [path.join(ROOT, "dist", "scripts", "versions.js"), "--check", "--release", out]);
});

test("the SDKs name the download URL given; the TypeScript one is compiled, with its types", async () => {
  const sdk = path.join(out, `go-pve-qemu-pulumi-sdk-${VERSION}.tgz`);
  const { stdout: files } = await exec("tar", ["-tzf", sdk]);
  expect(files.split("\n")).toEqual(
    expect.arrayContaining(["package/index.js", "package/index.d.ts", "package/vm.js"]),
  );
  expect(files).not.toMatch(/package\/vm\.ts\n/);
  const { stdout: manifest } = await exec("tar", ["-xzOf", sdk, "package/package.json"]);
  expect(JSON.parse(manifest)).toMatchObject({
    name: "@go-pve-qemu/pulumi",
    version: VERSION,
    pulumi: { resource: true, name: "gopveqemu", version: VERSION, server: URL },
    devDependencies: { typescript: expect.stringMatching(/^\^5\./), "@types/node": expect.stringMatching(/^\^22\./) },
  });
  const whl = path.join(out, `pulumi_gopveqemu-${VERSION}-py3-none-any.whl`);
  const { stdout: plugin } = await exec("unzip", ["-p", whl, "pulumi_gopveqemu/pulumi-plugin.json"]);
  expect(JSON.parse(plugin)).toEqual({ resource: true, name: "gopveqemu", version: VERSION, server: URL });
  const zip = path.join(out, "goproxy", GO_MODULE, "@v", `v${VERSION}.zip`);
  const { stdout: goUtil } = await exec("unzip", [
    "-p",
    zip,
    `${GO_MODULE}@v${VERSION}/gopveqemu/internal/pulumiUtilities.go`,
  ]);
  expect(goUtil).toContain(`pulumi.PluginDownloadURL("${URL}")`);
  expect(log).toContain(`plugin download URL ${URL}`);
});

test("each plugin tarball holds the launcher and its own platform's Node.js", async () => {
  const machine: Record<string, string> = { "linux-amd64": "Advanced Micro Devices X86-64", "linux-arm64": "AArch64" };
  for (const [platform, arch] of Object.entries(machine)) {
    const tarball = path.join(out, `pulumi-resource-gopveqemu-v${VERSION}-${platform}.tar.gz`);
    const unpacked = path.join(dir, platform);
    fs.mkdirSync(unpacked);
    await exec("tar", ["-xzf", tarball, "-C", unpacked, "pulumi-resource-gopveqemu", "node_modules/.bin/node"]);
    expect(fs.statSync(path.join(unpacked, "pulumi-resource-gopveqemu")).mode & 0o111).not.toBe(0);
    const { stdout } = await exec("readelf", ["-h", path.join(unpacked, "node_modules", ".bin", "node")]);
    expect(stdout).toContain(arch);
  }
});
