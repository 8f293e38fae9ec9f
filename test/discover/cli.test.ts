// `go-pve-qemu-pulumi discover` as a user runs it (the built bin, dist/):
// what it writes and prints, exit code 2 with the flag named for every bad
// command line (nothing asked of the server), 1 when discover fails, and the
// package's Node.js refusal on an older Node.js (a pinned one, whatever the
// machine's own is).
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { freePort } from "../../scripts/ports";
import { OLD_NODE_TIMEOUT_MS, oldNode, projectNode } from "../support/node-binaries";

const exec = promisify(execFile);
const NODE = path.join(ROOT, "node_modules", ".bin", "node");
const CLI = path.join(ROOT, "dist", "provider", "cli", "index.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in `cwd`; never throws on a non-zero exit. */
async function cli(args: string[], opts: { node?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const env = { ...process.env, GO_PVE_QEMU_ENDPOINT: "", GO_PVE_QEMU_TOKEN: "", ...opts.env };
  try {
    const { stdout, stderr } = await exec(opts.node ?? NODE, [CLI, ...args], { cwd: dir, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

let sim: SimulatorHandle;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ speed: 1000, disabled: [{ vmid: 190, name: "locked-190" }] });
  sim.addVm({ vmid: 120, name: "web-120", requestedName: "web", os: "ubuntu", running: true });
  sim.addVm({ vmid: 190, name: "locked-190", os: "debian" });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-cli-"));
});
afterAll(async () => {
  await sim.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test("writes the program to adopted.ts and prints what it found, then refuses to overwrite it without --force", async () => {
  const run = await cli(["discover", "--endpoint", sim.url]);
  expect(run).toMatchObject({ code: 0, stderr: "" });
  expect(run.stdout).toContain(`the go-pve-qemu server at ${sim.url} lists 2 VMs`);
  expect(run.stdout).toMatch(/adopt +web-120 \(120\) as "web"/);
  expect(run.stdout).toMatch(/disabled +locked-190 \(190\): the server's \.go_qemu_disabled file protects it/);
  expect(run.stdout).toContain("wrote adopted.ts: 1 Vm with adopt: true");
  expect(fs.readFileSync(path.join(dir, "adopted.ts"), "utf8")).toMatch(/web: new Vm\("web", \{/);

  const again = await cli(["discover", "--endpoint", sim.url]);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain("--out adopted.ts: the file exists; give --force to overwrite it");
  expect((await cli(["discover", "--endpoint", sim.url, "--force"])).code).toBe(0);
});

test("--out - writes the program to stdout and the report to stderr; the endpoint may come from the environment", async () => {
  const run = await cli(["discover", "--out", "-"], { env: { GO_PVE_QEMU_ENDPOINT: sim.url } });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^\/\/ The VMs of the go-pve-qemu server at /);
  expect(run.stdout).toContain('import { Vm } from "go-pve-qemu-pulumi";');
  expect(run.stderr).toContain(
    "1 to adopt, 0 held by the stacks given, 1 protected by .go_qemu_disabled, 0 not declared",
  );
});

test("--import-file alone writes Pulumi's bulk import file and no program; it too needs --force to overwrite", async () => {
  const file = path.join(dir, "vms.json");
  fs.rmSync(path.join(dir, "adopted.ts"), { force: true });
  const run = await cli(["discover", "--endpoint", sim.url, "--import-file", "vms.json"]);
  expect(run).toMatchObject({ code: 0, stderr: "" });
  expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
    resources: [{ type: "gopveqemu:index:Vm", name: "web", id: "120" }],
  });
  expect(run.stdout).toContain("wrote vms.json: 1 Vm to import");
  expect(run.stdout).toContain(
    `next: pulumi config set gopveqemu:endpoint ${sim.url}, then pulumi import --file vms.json`,
  );
  expect(run.stdout).not.toContain("adopt: true");
  expect(fs.existsSync(path.join(dir, "adopted.ts"))).toBe(false);

  const again = await cli(["discover", "--endpoint", sim.url, "--import-file", "vms.json"]);
  expect(again.code).toBe(2);
  expect(again.stderr).toContain("--import-file vms.json: the file exists; give --force to overwrite it");
  expect((await cli(["discover", "--endpoint", sim.url, "--import-file", "vms.json", "--force"])).code).toBe(0);
});

test("--import-file - writes the file to stdout and the report to stderr; with --out both are written", async () => {
  const run = await cli(["discover", "--endpoint", sim.url, "--import-file", "-"]);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toEqual({ resources: [{ type: "gopveqemu:index:Vm", name: "web", id: "120" }] });
  expect(run.stderr).toContain("1 to adopt, 0 held by the stacks given, 1 protected by .go_qemu_disabled");

  const both = await cli(["discover", "--endpoint", sim.url, "--out", "both.ts", "--import-file", "both.json"]);
  expect(both.code).toBe(0);
  expect(fs.readFileSync(path.join(dir, "both.ts"), "utf8")).toMatch(/web: new Vm\("web", \{/);
  expect(JSON.parse(fs.readFileSync(path.join(dir, "both.json"), "utf8")).resources).toHaveLength(1);
});

test("a server with no VM to adopt: an import file with no resources", async () => {
  const empty = await startSimulator({ speed: 1000 });
  try {
    const run = await cli(["discover", "--endpoint", empty.url, "--import-file", "-"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ resources: [] });
    expect(run.stderr).toContain("0 to adopt");
  } finally {
    await empty.close();
  }
});

test.each([
  [[], /^go-pve-qemu-pulumi discover: --endpoint: is required \(or GO_PVE_QEMU_ENDPOINT\)/],
  [["--endpoint", "10.0.0.5:8080"], /--endpoint 10\.0\.0\.5:8080: is not an http\(s\) URL/],
  [["--endpoint"], /Option '--endpoint <value>' argument missing/],
  [["--endpont", "http://x"], /Unknown option '--endpont'/],
  [["--timeout-ms", "soon"], /--timeout-ms: "soon" is not a whole number of milliseconds > 0/],
  [["--exclude-stack-export", "missing.json"], /--exclude-stack-export missing\.json: cannot be read \(no such file\)/],
  [["--exclude-stack-export", "bad.json"], /--exclude-stack-export bad\.json: is not JSON/],
  [["--out", "no/such/folder/adopted.ts"], /--out no\/such\/folder\/adopted\.ts: its folder does not exist/],
  [["--import-file", "no/such/vms.json"], /--import-file no\/such\/vms\.json: its folder does not exist/],
  [["--import-file", "-"], /--import-file -: stdout is --out's already; write one of them to a file/],
  [
    ["--out", "same.json", "--import-file", "same.json"],
    /--import-file same\.json: is --out's file too; give each its own/,
  ],
  [["--import-file"], /Option '--import-file <value>' argument missing/],
])("a bad command line %j: exit code 2, the flag named, nothing asked", async (args, message) => {
  fs.writeFileSync(path.join(dir, "bad.json"), "{ not json");
  const lists = sim.stats().requests.list ?? 0;
  const needsEndpoint = !args.includes("--endpoint") && args.length > 0;
  const run = await cli(["discover", "--out", "-", ...(needsEndpoint ? ["--endpoint", sim.url] : []), ...args]);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(message);
  expect(run.stdout).toBe("");
  expect(sim.stats().requests.list ?? 0).toBe(lists);
});

test("no command prints the usage; an unknown one is exit code 2", async () => {
  expect(await cli([])).toMatchObject({ code: 0, stdout: expect.stringContaining("discover   write a program") });
  expect(await cli(["discover", "--help"])).toMatchObject({
    code: 0,
    stdout: expect.stringContaining("--exclude-stack-export FILE"),
  });
  const unknown = await cli(["import"]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command "import"');
});

test("a server that cannot be reached: exit code 1 and the sentence of the Vm checks", async () => {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const run = await cli(["discover", "--endpoint", endpoint, "--out", "-"]);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(
    new RegExp(`^go-pve-qemu-pulumi discover: the go-pve-qemu server at ${endpoint} cannot be reached \\(`),
  );
  expect(run.stdout).toBe("");
});

test(
  "on the pinned old Node.js it refuses as the package does, in one line",
  async () => {
    const node = await oldNode();
    const run = await cli(["discover", "--endpoint", sim.url, "--out", "-"], { node: node.path });
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(
          `^go-pve-qemu-pulumi: Node\\.js >= 22\\.19 is required \\(found ${node.version.replace(/\./g, "\\.")}\\)\\. `,
        ),
      ),
    });
    expect(run.stderr.split("\n").filter((l) => l !== "")).toHaveLength(1); // one line, no stack trace
  },
  OLD_NODE_TIMEOUT_MS,
);

test("on this project's Node.js 22 nothing is refused: discover runs", async () => {
  const node = await projectNode();
  const run = await cli(["discover", "--endpoint", sim.url, "--out", "-"], { node: node.path });
  expect(run.code).toBe(0);
  expect(run.stderr).not.toContain("is required");
  expect(run.stdout).toContain('import { Vm } from "go-pve-qemu-pulumi";');
});
