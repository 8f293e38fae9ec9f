// The release as a Go user meets it: `go get <module>@v<version>` from the
// release's module proxy folder (GOPROXY=file://, the Pulumi SDK's modules
// from this machine's module cache, nothing from the network), then the Go
// consumer's Automation API inline program (test/consumers/go/main.go) `up`s
// one VM against the simulator and `destroy`s it, with an empty PULUMI_HOME,
// automatic plugin acquisition on, no plugin on PATH and no `plugin install`:
// the engine fetches the plugin tarball from the URL the Go SDK carries (a
// loopback stand-in of the release host, counting requests), once.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { ROOT } from "../../scripts/engine-env";
import { TARBALL, VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";

jest.setTimeout(20 * 60_000);

const exec = promisify(execFile);
const GO_MODULE = "github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go";

let dir: string;
let sim: SimulatorHandle;
let host: ReleaseHost;
let exe: string;
let env: NodeJS.ProcessEnv;

const run = (op: string) => runToEnd(exe, [op], path.join(dir, "work"), env);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-go-install-"));
  host = await releaseWithHost(dir);
  const out = host.out;
  sim = await startSimulator({ speed: 2000 });

  // An empty Go project: the release's proxy folder for the SDK, this machine's module cache (itself a proxy
  // folder) for the Pulumi SDK's modules; a module cache of its own, so no earlier download of the version counts.
  const shared = (await exec("go", ["env", "GOMODCACHE"])).stdout.trim();
  // The Pulumi SDK's modules into this machine's cache first, as the Go consumer's build fetches them
  // (scripts/ensure-consumers.sh go): the Go consumer's go.mod names the same versions.
  await exec("go", ["mod", "download"], {
    cwd: path.join(ROOT, "test", "consumers", "go"),
    env: { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", GOWORK: "off" },
  });
  const project = path.join(dir, "project");
  fs.mkdirSync(project);
  const goEnv = {
    ...process.env,
    GOPROXY: `file://${path.join(out, "goproxy")},file://${path.join(shared, "cache", "download")}`,
    GOMODCACHE: path.join(dir, "gomodcache"),
    GOSUMDB: "off",
    GOFLAGS: "-mod=mod",
    GOTOOLCHAIN: "local",
    GOWORK: "off",
  };
  await exec("go", ["mod", "init", "example.com/vms"], { cwd: project, env: goEnv });
  fs.copyFileSync(path.join(ROOT, "test", "consumers", "go", "main.go"), path.join(project, "main.go"));
  await exec("go", ["get", `${GO_MODULE}@v${VERSION}`, "github.com/pulumi/pulumi/sdk/v3@v3.276.0"], {
    cwd: project,
    env: goEnv,
  });
  // go build adds what this platform's build needs to go.mod (go mod tidy would want every platform's modules).
  exe = path.join(dir, "vms");
  await exec("go", ["build", "-trimpath", "-o", exe, "."], { cwd: project, env: goEnv });

  fs.mkdirSync(path.join(dir, "work"));
  env = firstRunEnv(dir, sim.url);
}, 20 * 60_000);

afterAll(async () => {
  await sim?.close();
  await host?.close();
  await exec("chmod", ["-R", "u+w", dir]).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("go get by module path, then up and destroy: the engine downloads the plugin once", async () => {
  const gomod = fs.readFileSync(path.join(dir, "project", "go.mod"), "utf8");
  expect(gomod).toContain(`${GO_MODULE} v${VERSION}`);
  expect(gomod).not.toContain("replace");

  const up = await run("up");
  expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({ code: 0, tail: expect.any(String) });
  expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);
  expect(fs.existsSync(path.join(dir, "home", "plugins", `resource-gopveqemu-v${VERSION}`))).toBe(true);

  const destroy = await run("destroy");
  expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({ code: 0, tail: expect.any(String) });
  expect(sim.vms()).toEqual([]);
  expect(host.requests).toEqual([TARBALL]);
});
