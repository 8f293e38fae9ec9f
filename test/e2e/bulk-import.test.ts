// discover's bulk import file through the real engine, the way a Python, Go
// or YAML user brings a server's VMs in: VMs made behind Pulumi's back, a
// stack on the resource plugin that declares none, `discover
// --import-file` (the built CLI), then `pulumi import --file`. The stack then
// holds each declarable VM under the name discover gave it, with its VMID as
// id; the VMs discover leaves out stay out; no VM was touched; and the
// program of the inputs read gave (as Pulumi would write it), with the
// version added, previews with no change.
// The Node.js program's stack imports with --generate-code=false: the
// Node.js language host built here writes no code. A YAML project's import
// writes its code through the YAML language host (test/consumers builds it),
// and that code, once given each VM's release, previews with no change.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { engineEnv, ROOT } from "../../scripts/engine-env";
import { ensureConsumer } from "../consumers/harness";
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const exec = promisify(execFile);
const NODE = path.join(ROOT, "node_modules", ".bin", "node");
const CLI = path.join(ROOT, "dist", "provider", "cli", "index.js");

/** Requests that change the server; list, status and health only look. */
function writes(sim: SimulatorHandle): number {
  const looks = new Set(["list", "status", "health", "admin", "notFound"]);
  return Object.entries(sim.stats().requests)
    .filter(([op]) => !looks.has(op))
    .reduce((sum, [, n]) => sum + n, 0);
}

// Two that share a name, one the server did not name its way (stopped, on
// the other node), one named by its VMID alone; one without an OS tag (no
// Vm describes it) and one the server's .go_qemu_disabled protects.
const BY_HAND = [
  { vmid: 120, name: "web-120", requestedName: "web", os: "ubuntu", cpu: 2, memoryMb: 4096, running: true },
  { vmid: 121, name: "web-121", requestedName: "web", os: "ubuntu", cpu: 2, memoryMb: 4096, running: true },
  { vmid: 122, name: "legacy-db", os: "debian", cpu: 4, memoryMb: 8192, diskGb: 40, running: false, node: "pve2" },
  { vmid: 123, name: "123", os: "rockylinux", cpu: 1, memoryMb: 2048, running: true },
  { vmid: 140, name: "notag-140", os: "", running: true },
  { vmid: 190, name: "locked-190", os: "debian", running: true },
];

/** Each VM's resource name as discover gives it, and its VMID as the id. */
const NAMES = { "web-120": "120", "web-121": "121", "legacy-db": "122", "vm-123": "123" };
/** The release a user adds to the code Pulumi writes (the server keeps none). */
const VERSION: Record<string, string> = { ubuntu: "24.04", debian: "13", rockylinux: "10" };

/** `go-pve-qemu-pulumi discover --import-file FILE` (the built CLI). */
async function discoverTo(sim: SimulatorHandle, file: string): Promise<string> {
  const run = await exec(NODE, [CLI, "discover", "--endpoint", sim.url, "--import-file", file], {
    env: { ...process.env, GO_PVE_QEMU_ENDPOINT: "", GO_PVE_QEMU_TOKEN: "" },
  });
  return run.stdout;
}

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.dispose();
  fleet = undefined;
});

test("discover --import-file, then pulumi import --file: each VM in state under discover's name, none touched, none left out taken", async () => {
  fleet = await newFleet({ disabled: [{ vmid: 190, name: "locked-190" }] }, { via: "plugin" });
  await fleet.setVms({});
  await fleet.up();
  for (const vm of BY_HAND) fleet.sim.addVm(vm);
  const before = { writes: writes(fleet.sim), installs: fleet.sim.stats().installsStarted };

  const file = path.join(fleet.workDir, "vms.json");
  const said = await discoverTo(fleet.sim, file);
  expect(said).toMatch(/not declared +notag-140 \(140\): os: the list gives ""/);
  expect(said).toMatch(/disabled +locked-190 \(190\)/);
  expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
    resources: Object.entries(NAMES).map(([name, id]) => ({ type: "gopveqemu:index:Vm", name, id })),
  });

  const f = fleet;
  const pulumi = (args: string[]) => run("pulumi", [...args, "--non-interactive", "--stack", "e2e"], f.workDir, f.env);
  const imported = await pulumi(["import", "--file", file, "--yes", "--generate-code=false"]);
  expect(imported.output).not.toMatch(/error/i);
  expect(imported.code).toBe(0);
  const state = fleet.resources();
  expect(Object.fromEntries(Object.entries(state).map(([name, r]) => [name, r.id]))).toEqual(NAMES);
  expect(state["legacy-db"]!.outputs).toMatchObject({ vmName: "legacy-db", running: false, node: "pve2" });

  // Read and nothing else: no install, no power change, no write of any kind.
  expect(writes(fleet.sim)).toBe(before.writes);
  expect(fleet.sim.stats().installsStarted).toBe(before.installs);
  expect(fleet.sim.vms().map((v) => [v.vmid, v.running])).toEqual(BY_HAND.map((v) => [v.vmid, v.running]));

  // The program Pulumi would write holds the inputs read gave; with the release each VM runs
  // added (the server keeps none), its preview is empty.
  const program = Object.entries(state).map(([name, r]) => [
    name,
    { ...r.inputs, version: VERSION[String(r.inputs.os)] },
  ]);
  await fleet.setVms(Object.fromEntries(program));
  const preview = await pulumi(["preview", "--expect-no-changes"]);
  expect(preview.output).not.toMatch(/error/i);
  expect(preview.code).toBe(0);
  expect(writes(fleet.sim)).toBe(before.writes);
});

test("a YAML project: pulumi import --file writes the declarations in YAML; given each VM's release, that program previews with no change", async () => {
  const host = ensureConsumer("yaml");
  const sim = await startSimulator({ speed: 2000, disabled: [{ vmid: 190, name: "locked-190" }] });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-bulk-yaml-"));
  try {
    for (const vm of BY_HAND) sim.addVm(vm);
    const work = path.join(scratch, "project");
    fs.mkdirSync(work);
    fs.mkdirSync(path.join(scratch, "backend"));
    const project = "name: adopted-yaml\nruntime: yaml\n";
    fs.writeFileSync(path.join(work, "Pulumi.yaml"), `${project}resources: {}\n`);
    const base = engineEnv({ backendDir: path.join(scratch, "backend"), homeDir: path.join(scratch, "home") });
    const env = { ...base, PATH: [host, base.PATH].join(path.delimiter), GO_PVE_QEMU_ENDPOINT: "" };
    const pulumi = async (args: string[]) => {
      const r = await run("pulumi", [...args, "--non-interactive"], work, env);
      if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")}: exit ${r.code}\n${r.output}`);
      return r.output;
    };
    await pulumi(["stack", "init", "dev"]);
    await pulumi(["config", "set", "gopveqemu:endpoint", sim.url]);
    await discoverTo(sim, path.join(work, "vms.json"));

    await pulumi(["import", "--file", "vms.json", "--yes", "--protect=false", "--out", "generated.yaml"]);
    const generated = fs.readFileSync(path.join(work, "generated.yaml"), "utf8");
    for (const name of Object.keys(NAMES)) expect(generated).toContain(`  ${name}:\n    type: gopveqemu:Vm\n`);
    expect(generated).toMatch(/ {6}vmid: 122\n/);
    expect(generated).not.toMatch(/notag|locked|vmid: 1[49]0/);
    // Pulumi leaves the required version it could not read empty: the user writes the release.
    expect(generated.match(/^ {6}version: ""$/gm)).toHaveLength(4);
    let osOf = "";
    const program = generated
      .split("\n")
      .map((line) => {
        osOf = /^ {6}os: (\w+)$/.exec(line)?.[1] ?? osOf;
        return line === '      version: ""' ? `      version: "${VERSION[osOf]}"` : line;
      })
      .join("\n");
    fs.writeFileSync(path.join(work, "Pulumi.yaml"), project + program);
    await pulumi(["preview", "--expect-no-changes"]);
    expect(writes(sim)).toBe(0);
    expect(sim.stats().installsStarted).toBe(0);
  } finally {
    await sim.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code, output }));
  });
}
