// The release as a YAML user meets it: a Pulumi YAML program whose Vm names
// the plugin's version and download URL in its resource options (`version`,
// `pluginDownloadURL`: the loopback release host), and nothing else: no `pulumi
// plugin install`, no `plugins:` entry, no plugin on PATH (only the engine and
// its YAML language host, as the Pulumi CLI ships them), an empty PULUMI_HOME
// and automatic plugin acquisition on. `pulumi up` creates one VM on the
// simulator and `destroy` removes it; the engine downloads the tarball once.
// The plugin it downloaded, asked for its schema by the engine (GetSchema),
// names the download URL the release was made with.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { ensureConsumer } from "../consumers/harness";
import { TARBALL, VERSION, firstRunEnv, releaseWithHost, runToEnd, type ReleaseHost } from "./by-name";

jest.setTimeout(20 * 60_000);

const exec = promisify(execFile);

/** The program a YAML user writes: the plugin's version and where it is downloaded from, on the resource. */
const program = (downloadUrl: string) => `name: vms
runtime: yaml
config:
  cpu:
    type: integer
resources:
  web:
    type: gopveqemu:Vm
    properties:
      os: ubuntu
      version: "24.04"
      name: web
      cpu: \${cpu}
      memoryMb: 2048
    options:
      version: ${VERSION}
      pluginDownloadURL: ${downloadUrl}
outputs:
  vmid: \${web.vmid}
`;

let dir: string;
let work: string;
let sim: SimulatorHandle;
let host: ReleaseHost;
let env: NodeJS.ProcessEnv;

const run = (args: string[]) => runToEnd("pulumi", [...args, "--non-interactive", "--stack", "dev"], work, env);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-yaml-install-"));
  host = await releaseWithHost(dir);
  sim = await startSimulator({ speed: 2000 });
  const first = firstRunEnv(dir, sim.url);
  // The YAML language host on PATH, as the Pulumi CLI's own folder has it; the engine looks on PATH for it,
  // so ambient plugins are not ignored here (the first test shows no gopveqemu plugin on PATH).
  env = { ...first, PATH: `${ensureConsumer("yaml")}${path.delimiter}${first.PATH}` };
  delete env.PULUMI_IGNORE_AMBIENT_PLUGINS;
  work = path.join(dir, "vms");
  fs.mkdirSync(work);
  fs.writeFileSync(path.join(work, "Pulumi.yaml"), program(host.url));
  const init = await runToEnd("pulumi", ["stack", "init", "dev", "--non-interactive"], work, env);
  if (init.code !== 0) throw new Error(`pulumi stack init:\n${init.output}`);
  fs.writeFileSync(path.join(work, "Pulumi.dev.yaml"), `config:\n  gopveqemu:endpoint: ${sim.url}\n  vms:cpu: 2\n`);
}, 20 * 60_000);

afterAll(async () => {
  await sim?.close();
  await host?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("the plugin is nowhere the engine would find it before the run", () => {
  const onPath = env
    .PATH!.split(path.delimiter)
    .filter((d) => fs.existsSync(path.join(d, "pulumi-resource-gopveqemu")));
  expect(onPath).toEqual([]);
  expect(fs.existsSync(path.join(dir, "home", "plugins"))).toBe(false);
  expect(fs.readFileSync(path.join(work, "Pulumi.yaml"), "utf8")).not.toMatch(/^plugins:/m);
});

test("up and destroy from the resource options: the engine downloads the plugin once", async () => {
  const up = await run(["up", "--yes", "--skip-preview"]);
  expect({ code: up.code, tail: up.output.slice(-3000) }).toEqual({
    code: 0,
    tail: up.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms().map((v) => v.name)).toEqual([expect.stringMatching(/^web/)]);
  expect(fs.existsSync(path.join(dir, "home", "plugins", `resource-gopveqemu-v${VERSION}`))).toBe(true);

  const destroy = await run(["destroy", "--yes", "--skip-preview"]);
  expect({ code: destroy.code, tail: destroy.output.slice(-3000) }).toEqual({
    code: 0,
    tail: destroy.code === 0 ? expect.any(String) : "",
  });
  expect(sim.vms()).toEqual([]);
  expect(host.requests).toEqual([TARBALL]);
});

test("the downloaded plugin's GetSchema names the download URL the release was made with", async () => {
  // By name and version: the engine starts the plugin it installed into PULUMI_HOME (no second download).
  const { stdout } = await exec("pulumi", ["package", "get-schema", `gopveqemu@${VERSION}`], {
    cwd: work,
    env,
    maxBuffer: 64 << 20,
  });
  expect(JSON.parse(stdout)).toMatchObject({ name: "gopveqemu", version: VERSION, pluginDownloadURL: host.url });
  expect(host.requests).toEqual([TARBALL]);
});
