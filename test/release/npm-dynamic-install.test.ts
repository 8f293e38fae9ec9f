// The release as a user of the dynamic provider meets it: `npm install
// go-pve-qemu-pulumi @pulumi/pulumi` by name from the loopback npm stand-in
// (verdaccio, no uplink: the release's package published to it by `npm
// publish`, the dependency closure seeded from package-lock.json) into an
// empty TypeScript project with an empty npm cache, whose program (`import {
// Vm } from "go-pve-qemu-pulumi"`) type-checks, then `pulumi up` creates one
// VM on the simulator and `destroy` removes it. The dynamic provider runs in
// the program's own Node.js: the release host is never asked for a plugin.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { npmStandIn, type NpmRegistry } from "./npm-registry";
import { VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";
import { npmProject, type NpmProject } from "./npm-project";

jest.setTimeout(20 * 60_000);

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Vm } from "go-pve-qemu-pulumi";

const config = new pulumi.Config();
const web = new Vm("web", {
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
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-npm-dynamic-"));
  host = await releaseWithHost(dir);
  registry = await npmStandIn(dir, host.out, VERSION);
  sim = await startSimulator({ speed: 2000 });
  project = await npmProject({
    dir,
    name: "vms",
    registry,
    firstRun: firstRunEnv(dir, sim.url),
    packages: ["go-pve-qemu-pulumi", "@pulumi/pulumi", "typescript", "@types/node"],
    program: PROGRAM,
    config: { "goPveQemu:endpoint": sim.url, "vms:cpu": "2" },
  });
}, 20 * 60_000);

afterAll(async () => {
  await registry?.close();
  await sim?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("npm install by name from the npm stand-in, every package through it", () => {
  const installed = path.join(project.dir, "node_modules", "go-pve-qemu-pulumi", "package.json");
  expect(JSON.parse(fs.readFileSync(installed, "utf8"))).toMatchObject({
    name: "go-pve-qemu-pulumi",
    version: VERSION,
  });
  const resolved = project.resolved();
  expect(resolved.length).toBeGreaterThan(50);
  expect(resolved.filter((u) => !u.startsWith(`${registry.url}/`))).toEqual([]);
});

test("the program type-checks against the package's types", async () => {
  const tsc = await runToEnd(
    "node",
    [path.join("node_modules", "typescript", "bin", "tsc"), "-p", ".", "--noEmit"],
    project.dir,
    project.env,
  );
  expect(tsc).toEqual({ code: 0, output: "" });
});

test("up and destroy with the dynamic provider: no plugin is downloaded", async () => {
  const up = await project.run("up");
  expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({
    code: 0,
    tail: up.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);

  const destroy = await project.run("destroy");
  expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({
    code: 0,
    tail: destroy.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms()).toEqual([]);
  expect(host.requests).toEqual([]);
});
