// The release as a TypeScript user of the resource plugin meets it: `npm
// install @go-pve-qemu/pulumi` by name from a loopback stand-in of the npm
// registry (verdaccio, no uplink: the release's packages published to it by
// `npm publish`, the dependency closure seeded from package-lock.json), into
// an empty project with an empty npm cache; its program type-checks against
// the SDK's types, then `pulumi up` creates one VM on the simulator and
// `destroy` removes it, with an empty PULUMI_HOME, automatic plugin
// acquisition on, no plugin on PATH, no `plugin install` and no `plugins:`:
// the engine fetches the plugin tarball from the SDK's URL (the loopback
// release host), once.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { npmStandIn, type NpmRegistry } from "./npm-registry";
import { TARBALL, VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";
import { npmProject, type NpmProject } from "./npm-project";

jest.setTimeout(20 * 60_000);

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import * as gopveqemu from "@go-pve-qemu/pulumi";

const config = new pulumi.Config();
const web = new gopveqemu.Vm("web", {
  os: "ubuntu",
  version: "24.04",
  name: "web",
  cpu: config.requireNumber("cpu"),
  memoryMb: 2048,
});

export const vmid = web.vmid;
`;

let dir: string;
let sim: SimulatorHandle;
let host: ReleaseHost;
let registry: NpmRegistry;
let project: NpmProject;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-npm-sdk-"));
  host = await releaseWithHost(dir);
  registry = await npmStandIn(dir, host.out, VERSION);
  sim = await startSimulator({ speed: 2000 });
  project = await npmProject({
    dir,
    name: "vms",
    registry,
    firstRun: firstRunEnv(dir, sim.url),
    packages: ["@go-pve-qemu/pulumi", "@pulumi/pulumi", "typescript", "@types/node"],
    program: PROGRAM,
    config: { "gopveqemu:endpoint": sim.url, "vms:cpu": "2" },
  });
}, 20 * 60_000);

afterAll(async () => {
  await registry?.close();
  await sim?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("npm install by name from the npm stand-in, every package through it", () => {
  const sdk = path.join(project.dir, "node_modules", "@go-pve-qemu", "pulumi");
  expect(JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8"))).toMatchObject({
    name: "@go-pve-qemu/pulumi",
    version: VERSION,
    pulumi: { resource: true, name: "gopveqemu", version: VERSION, server: host.url },
  });
  const resolved = project.resolved();
  expect(resolved.length).toBeGreaterThan(50);
  expect(resolved.filter((u) => !u.startsWith(`${registry.url}/`))).toEqual([]);
});

test("the program type-checks against the SDK's types", async () => {
  const tsc = await runToEnd(
    "node",
    [path.join("node_modules", "typescript", "bin", "tsc"), "-p", ".", "--noEmit"],
    project.dir,
    project.env,
  );
  expect(tsc).toEqual({ code: 0, output: "" });
});

test("up and destroy: the engine downloads the plugin once", async () => {
  const up = await project.run("up");
  expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({
    code: 0,
    tail: up.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);
  expect(fs.existsSync(path.join(dir, "home", "plugins", `resource-gopveqemu-v${VERSION}`))).toBe(true);

  const destroy = await project.run("destroy");
  expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({
    code: 0,
    tail: destroy.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms()).toEqual([]);
  expect(host.requests).toEqual([TARBALL]);
});
