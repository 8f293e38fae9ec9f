// What the install-by-name tests share: a release whose SDKs download the
// plugin from a loopback stand-in of the release host (a plain HTTP server
// over the release folder that notes each request), and the environment of a
// user's first run: an empty PULUMI_HOME, automatic plugin acquisition on,
// the engine alone on PATH (no plugin launcher, no Node.js 22).
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT, engineEnv } from "../../scripts/engine-env";
import { freePort } from "../../scripts/ports";

const exec = promisify(execFile);

export const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;
export const TARBALL = `pulumi-resource-gopveqemu-v${VERSION}-linux-amd64.tar.gz`;

export interface ReleaseHost {
  /** The release folder. */
  out: string;
  /** The download URL the release baked into its SDKs and schema: this host. */
  url: string;
  /** Every path the host was asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** `npm run release` into `<dir>/release`, its SDKs pointing at a release host started on loopback. */
export async function releaseWithHost(dir: string): Promise<ReleaseHost> {
  const port = await freePort();
  const out = path.join(dir, "release");
  await exec("npm", ["run", "-s", "release", "--", "--download-url", `http://127.0.0.1:${port}`, "--out", out], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").split("?")[0]!).replace(/^\/+/, "");
    requests.push(name);
    const file = path.join(out, path.basename(name));
    if (!fs.existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { "content-length": fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    out,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A first run's environment, its state and Pulumi home under `dir`, the program's config for the simulator at `endpoint`. */
export function firstRunEnv(dir: string, endpoint: string): NodeJS.ProcessEnv {
  fs.mkdirSync(path.join(dir, "backend"), { recursive: true });
  const base = engineEnv({ backendDir: path.join(dir, "backend"), homeDir: path.join(dir, "home") });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...base,
    // The engine alone on PATH: not this checkout's bin/ (its plugin launcher), no Node.js 22.
    PATH: [base.PATH!.split(path.delimiter)[0], "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
    PULUMI_IGNORE_AMBIENT_PLUGINS: "true",
    CONSUMER_STACK: "dev",
    CONSUMER_CONFIG: JSON.stringify({ "gopveqemu:endpoint": endpoint, cpu: "2" }),
    GO_PVE_QEMU_ENDPOINT: "",
    GO_PVE_QEMU_TOKEN: "",
  };
  delete env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
  return env;
}

/** Runs a command to its end: its exit code and everything it printed. */
export function runToEnd(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
