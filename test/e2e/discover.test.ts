// Discover through the real engine, as the "done when" states it: a
// server with five VMs made by hand and two that another stack holds (its
// export given). `go-pve-qemu-pulumi discover` (the built CLI) writes a
// program; its first `up` adopts the five with no write to the server, the
// preview after it is empty, and `destroy` removes the five and leaves the
// other stack's two.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { ROOT } from "../../scripts/engine-env";
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const exec = promisify(execFile);
const NODE = path.join(ROOT, "node_modules", ".bin", "node");
const CLI = path.join(ROOT, "dist", "provider", "cli", "index.js");
const TSC = path.join(ROOT, "node_modules", ".bin", "tsc");

/** Requests that change the server; list, status and health only look. */
function writes(sim: SimulatorHandle): number {
  const looks = new Set(["list", "status", "health", "admin", "notFound"]);
  return Object.entries(sim.stats().requests)
    .filter(([op]) => !looks.has(op))
    .reduce((sum, [, n]) => sum + n, 0);
}

// Made by hand: names the server's way and not, both nodes, stopped and
// running, memory that is no whole GiB, a disk grown by hand past a GiB.
const HAND_MADE = [
  { vmid: 120, name: "web-120", requestedName: "web", os: "ubuntu", cpu: 2, memoryMb: 4096, diskGb: 32, running: true },
  { vmid: 121, name: "web-121", requestedName: "web", os: "ubuntu", cpu: 2, memoryMb: 3000, diskGb: 20, running: true },
  { vmid: 122, name: "legacy-db", os: "debian", cpu: 4, memoryMb: 8192, diskGb: 40.5, running: false, node: "pve2" },
  { vmid: 123, name: "123", os: "rockylinux", cpu: 1, memoryMb: 2048, diskGb: 16, running: true, node: "pve2" },
  { vmid: 124, name: "cache-124", requestedName: "cache", os: "debian", cpu: 8, memoryMb: 16384, running: false },
];

let sim: SimulatorHandle;
let other: Fleet;
let adopted: Fleet;
let exportFile: string;
const cleanup: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ speed: 2000 });
  other = await newFleet({}, { sim, stackName: "other" });
  await other.setVms({
    app: { os: "debian", version: "12", name: "app", vmid: 140 },
    worker: { os: "ubuntu", version: "24.04" }, // a derived name and a VMID the server picks
  });
  await other.up();
  expect(sim.vms()).toHaveLength(2);
  for (const vm of HAND_MADE) sim.addVm(vm);
  exportFile = path.join(other.workDir, "other-export.json");
  fs.writeFileSync(exportFile, JSON.stringify(await other.stack.exportStack()));
  adopted = await newFleet({}, { sim, program: path.join(__dirname, "programs", "empty"), stackName: "adopted" });
});

afterAll(async () => {
  await adopted?.destroy().catch(() => undefined);
  await adopted?.dispose();
  await other?.destroy().catch(() => undefined);
  await other?.dispose();
  await sim?.close();
  for (const f of cleanup) fs.rmSync(f, { recursive: true, force: true });
});

test("discover, then up of the program it writes: 5 VMs adopted with 0 writes, an empty preview; destroy keeps the other stack's", async () => {
  const program = path.join(adopted.workDir, "index.ts");
  const before = writes(sim);
  const run = await exec(NODE, [
    CLI,
    "discover",
    "--endpoint",
    sim.url,
    "--exclude-stack-export",
    exportFile,
    "--out",
    program,
    "--force",
  ]);
  expect(writes(sim)).toBe(before); // discover only looks
  expect(run.stdout).toMatch(
    /5 to adopt, 2 held by the stacks given, 0 protected by \.go_qemu_disabled, 0 not declared/,
  );
  expect(run.stdout).toMatch(/held +app-140 \(140\): held by stack fleet\/other as "app"/);
  const text = fs.readFileSync(program, "utf8");
  expect(text.match(/^ +adopt: true,$/gm)).toHaveLength(5);
  expect(text).not.toMatch(/vmid: 140\b/);

  // The program type-checks against the package's own types.
  fs.writeFileSync(
    path.join(adopted.workDir, "tsconfig.json"),
    JSON.stringify({ extends: path.join(ROOT, "tsconfig.json"), include: [], files: ["index.ts"] }),
  );
  await exec(TSC, ["--noEmit", "-p", adopted.workDir]);

  const up = await adopted.up();
  expect(up.summary.resourceChanges).toEqual({ create: 7 }); // the stack, its identity and the five VMs
  expect(writes(sim)).toBe(before); // 0 writes: nothing installed, started, stopped or resized
  expect(Object.keys(adopted.resources()).sort()).toEqual(["cache", "legacy-db", "vm-123", "web-120", "web-121"]);
  expect(sim.vms().map((v) => [v.vmid, v.cpu, v.memoryMb, v.running])).toEqual(
    expect.arrayContaining(HAND_MADE.map((v) => [v.vmid, v.cpu, v.memoryMb, v.running])),
  );
  expect(up.outputs.adopted?.value).toMatchObject({ "web-120": "web-120", "legacy-db": "legacy-db", "vm-123": "123" });

  const preview = await adopted.preview();
  expect(preview.changeSummary).toEqual({ same: 7 });
  expect(writes(sim)).toBe(before);
  // The other stack sees nothing changed either.
  expect((await other.preview()).changeSummary).toEqual({ same: 4 });

  await adopted.destroy();
  expect(
    sim
      .vms()
      .map((v) => v.vmid)
      .sort(),
  ).toEqual(
    Object.values(other.resources())
      .map((r) => Number(r.id))
      .sort(),
  );
  expect(sim.vms()).toHaveLength(2);
});
