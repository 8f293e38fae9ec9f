// The release as a Python user meets it: `pip install pulumi_gopveqemu` by
// name from a loopback stand-in of PyPI (pypiserver, pinned, in a venv in the
// cache, serving only the release's wheel and sdist, no fallback to PyPI),
// then the Python consumer's Automation API inline program
// (test/consumers/python/main.py) `up`s one VM against the simulator and
// `destroy`s it, with an empty PULUMI_HOME, automatic plugin acquisition on
// and no plugin on PATH: the engine fetches the plugin tarball from the URL
// the SDK carries (the loopback release host), once. The SDK's own
// dependencies (pulumi, from PyPI) come from the consumers' cached venv.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { ROOT } from "../../scripts/engine-env";
import { freePort } from "../../scripts/ports";
import { cacheDir } from "../../scripts/release-tools";
import { ensureConsumer } from "../consumers/harness";
import { TARBALL, VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";

jest.setTimeout(20 * 60_000);

const exec = promisify(execFile);
const PYPISERVER = "pypiserver==2.4.2";

let dir: string;
let sim: SimulatorHandle;
let host: ReleaseHost;
let index: ChildProcess | undefined;
let python: string;
let env: NodeJS.ProcessEnv;

/** A venv with pypiserver at its pinned version, made once in the cache. */
async function pypiserver(): Promise<string> {
  const venv = path.join(cacheDir(), `release-${PYPISERVER.replace("==", "-")}`);
  if (!fs.existsSync(path.join(venv, ".complete"))) {
    fs.rmSync(venv, { recursive: true, force: true });
    await exec("python3", ["-m", "venv", venv]);
    await exec(path.join(venv, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      PYPISERVER,
    ]);
    fs.writeFileSync(path.join(venv, ".complete"), "");
  }
  return path.join(venv, "bin", "python");
}

/** pypiserver on loopback over a folder holding the release's Python files; answers its simple index URL. */
async function startIndex(packages: string): Promise<string> {
  const port = await freePort();
  index = spawn(
    await pypiserver(),
    ["-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", String(port), "--disable-fallback", packages],
    { stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}/simple/`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return url;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`pypiserver did not answer at ${url}`);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-py-install-"));
  host = await releaseWithHost(dir);
  const packages = path.join(dir, "packages");
  fs.mkdirSync(packages);
  for (const f of fs.readdirSync(host.out).filter((f) => f.startsWith("pulumi_gopveqemu-")))
    fs.copyFileSync(path.join(host.out, f), path.join(packages, f));
  const url = await startIndex(packages);
  python = ensureConsumer("python");
  const site = path.join(dir, "site");
  await exec(python, [
    ...["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-cache-dir"],
    ...["--index-url", url, "--target", site, "pulumi_gopveqemu"],
  ]);
  sim = await startSimulator({ speed: 2000 });
  fs.mkdirSync(path.join(dir, "work"));
  env = { ...firstRunEnv(dir, sim.url), PYTHONPATH: site, PYTHONDONTWRITEBYTECODE: "1" };
}, 20 * 60_000);

afterAll(async () => {
  index?.kill();
  await sim?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("pip install by name, then up and destroy: the engine downloads the plugin once", async () => {
  const installed = fs.readdirSync(path.join(dir, "site"));
  expect(installed).toEqual(expect.arrayContaining(["pulumi_gopveqemu", `pulumi_gopveqemu-${VERSION}.dist-info`]));
  const main = path.join(ROOT, "test", "consumers", "python", "main.py");
  const run = (op: string) => runToEnd(python, [main, op], path.join(dir, "work"), env);

  const up = await run("up");
  expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({ code: 0, tail: expect.any(String) });
  expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);
  expect(fs.existsSync(path.join(dir, "home", "plugins", `resource-gopveqemu-v${VERSION}`))).toBe(true);

  const destroy = await run("destroy");
  expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({ code: 0, tail: expect.any(String) });
  expect(sim.vms()).toEqual([]);
  expect(host.requests).toEqual([TARBALL]);
});
