// The release as a TypeScript user meets it, both packages from one release
// and one loopback stand-in of the npm registry (verdaccio, no uplink: the
// release's packages published to it by `npm publish`, the dependency
// closure seeded from package-lock.json). Each package goes by name into an
// empty project of its own, with an empty npm cache and an empty PULUMI_HOME;
// its program type-checks against the package's types, then `pulumi up`
// creates one VM on the simulator and `destroy` removes it:
// - the dynamic provider (`go-pve-qemu-pulumi`), which runs in the program's
//   own Node.js: the release host is never asked for a plugin; installed by
//   the range the README's starter asks for, which must take this release;
// - the resource plugin's SDK (`@go-pve-qemu/pulumi`), with automatic plugin
//   acquisition on, no plugin on PATH, no `plugin install` and no `plugins:`:
//   the engine fetches the plugin tarball from the SDK's URL (the loopback
//   release host), once.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { npmStandIn, type NpmRegistry } from "./npm-registry";
import { TARBALL, VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";
import { npmProject, type NpmProject } from "./npm-project";
import { readmeStarter } from "../package/user-project";

jest.setTimeout(20 * 60_000);

/** A program of one Vm: `Vm` is what the package's `import` gives. */
const program = (importLine: string, vm: string) => `import * as pulumi from "@pulumi/pulumi";
${importLine}

const config = new pulumi.Config();
const web = new ${vm}("web", {
  os: "ubuntu",
  version: "24.04",
  name: "web",
  cpu: config.requireNumber("cpu"),
  memoryMb: 2048,
});

export const vmid = web.vmid;
`;

interface Case {
  what: string;
  pkg: string;
  /** what `npm install` is given: the name, or name@range */
  spec: string;
  program: string;
  /** the settings' namespace of that way in */
  ns: string;
  /** what the installed package.json says */
  manifest: () => Record<string, unknown>;
  /** the plugin tarballs the engine downloads: none, or one */
  downloads: () => string[];
}

let dir: string;
let sim: SimulatorHandle;
let host: ReleaseHost;
let registry: NpmRegistry;

// In this order: the dynamic provider's project must download nothing before the SDK's downloads once.
const CASES: Case[] = [
  {
    what: "the dynamic provider's package",
    pkg: "go-pve-qemu-pulumi",
    spec: `go-pve-qemu-pulumi@${JSON.parse(readmeStarter()["package.json"]!).dependencies["go-pve-qemu-pulumi"]}`,
    program: program('import { Vm } from "go-pve-qemu-pulumi";', "Vm"),
    ns: "goPveQemu",
    manifest: () => ({ name: "go-pve-qemu-pulumi", version: VERSION }),
    downloads: () => [],
  },
  {
    what: "the resource plugin's TypeScript SDK",
    pkg: "@go-pve-qemu/pulumi",
    spec: "@go-pve-qemu/pulumi",
    program: program('import * as gopveqemu from "@go-pve-qemu/pulumi";', "gopveqemu.Vm"),
    ns: "gopveqemu",
    manifest: () => ({
      name: "@go-pve-qemu/pulumi",
      version: VERSION,
      pulumi: { resource: true, name: "gopveqemu", version: VERSION, server: host.url },
    }),
    downloads: () => [TARBALL],
  },
];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-npm-install-"));
  host = await releaseWithHost(dir);
  registry = await npmStandIn(dir, host.out, VERSION);
  sim = await startSimulator({ speed: 2000 });
}, 20 * 60_000);

afterAll(async () => {
  await registry?.close();
  await sim?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(CASES)("$what", (c) => {
  let project: NpmProject;
  /** this project's folder: its own npm cache, PULUMI_HOME and backend */
  let own: string;
  beforeAll(async () => {
    own = fs.mkdtempSync(path.join(dir, "project-"));
    project = await npmProject({
      dir: own,
      name: "vms",
      registry,
      firstRun: firstRunEnv(own, sim.url),
      packages: [c.spec, "@pulumi/pulumi", "typescript", "@types/node"],
      program: c.program,
      config: { [`${c.ns}:endpoint`]: sim.url, "vms:cpu": "2" },
    });
  }, 20 * 60_000);

  test("npm install by name (the dynamic provider at the README starter's range) from the npm stand-in, every package through it", () => {
    const installed = path.join(project.dir, "node_modules", ...c.pkg.split("/"), "package.json");
    expect(JSON.parse(fs.readFileSync(installed, "utf8"))).toMatchObject(c.manifest());
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

  test("up and destroy; the plugin downloaded as the way in needs it (never, or once)", async () => {
    const before = host.requests.length;
    const up = await project.run("up");
    expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({
      code: 0,
      tail: up.code === 0 ? expect.any(String) : "",
    });
    expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);
    const plugin = path.join(own, "home", "plugins", `resource-gopveqemu-v${VERSION}`);
    expect(fs.existsSync(plugin)).toBe(c.downloads().length > 0);

    const destroy = await project.run("destroy");
    expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({
      code: 0,
      tail: destroy.code === 0 ? expect.any(String) : "",
    });
    expect(sim.vms()).toEqual([]);
    expect(host.requests.slice(before)).toEqual(c.downloads());
  });
});
