// examples/multi-vm through the real engine against the simulator: the
// expected VMs are made (loop, pinned VMID, other node, dependency), and
// resizing the workers by config previews as in-place updates and applies.
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { listVms, newSandbox, type Sandbox } from "./support";

jest.setTimeout(180_000);

let box: Sandbox;
let stack: Stack;
const output: string[] = [];
const streams = { onOutput: (s: string) => output.push(s) };

beforeAll(async () => {
  box = await newSandbox();
  const workDir = box.copyExample("multi-vm");
  const pulumiCommand = await PulumiCommand.get({
    root: path.dirname(box.env.GO_PVE_QEMU_ENGINE_BIN!),
    skipVersionCheck: true,
  });
  stack = await LocalWorkspace.createOrSelectStack({ stackName: "test", workDir }, { envVars: box.env, pulumiCommand });
  await stack.setAllConfig({
    "goPveQemu:endpoint": { value: box.sim.url },
    workerCount: { value: "3" },
    dbVmid: { value: "131" },
  });
});

afterAll(async () => {
  if (stack) {
    await stack.destroy(streams).catch(() => undefined);
    await stack.workspace.removeStack("test", { force: true }).catch(() => undefined);
  }
  await box?.dispose();
});

function fail(message: string): never {
  throw new Error(`${message}\n--- engine output (tail) ---\n${output.join("").split("\n").slice(-60).join("\n")}`);
}

test("up makes the db (pinned VMID), the app, N workers from workerCount and the backup on pve2", async () => {
  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.result).toBe("succeeded");
  expect(up.summary.resourceChanges?.create).toBe(8); // the stack, its identity + db, app, 3 workers, backup

  const vms = await listVms(box.sim.url);
  expect(vms).toHaveLength(6);
  const byPrefix = (p: string) => vms.filter((v) => v.name.startsWith(`${p}-`) || v.name === p);
  expect(byPrefix("db").map((v) => v.vmid)).toEqual([131]);
  expect(byPrefix("app")).toHaveLength(1);
  expect(["worker0", "worker1", "worker2"].map((w) => byPrefix(w).length)).toEqual([1, 1, 1]);
  expect(byPrefix("backup").map((v) => v.node)).toEqual(["pve2"]);
  expect(vms.every((v) => v.running)).toBe(true);

  const ips = up.outputs.ips?.value as { db: string; app: string; backup: string; workers: string[] };
  expect(ips.db).toMatch(/^\d+\.\d+\.\d+\.131$/);
  expect(ips.workers).toHaveLength(3);
  expect(new Set([ips.db, ips.app, ips.backup, ...ips.workers]).size).toBe(6);
  expect(up.outputs.dbPassword?.secret).toBe(true);
  expect(up.outputs.backupPlacement?.value).toMatch(/ on pve2$/);
});

test("resizing the workers by config previews as in-place updates and applies", async () => {
  await stack.setAllConfig({ workerCpu: { value: "4" }, workerMemoryMb: { value: "4096" } });

  const preview = await stack.preview(streams).catch((e: Error) => fail(`preview failed: ${e.message}`));
  expect(preview.changeSummary).toEqual({ same: 5, update: 3 });

  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.resourceChanges).toEqual({ same: 5, update: 3 });
  const workers = (await listVms(box.sim.url)).filter((v) => v.name.startsWith("worker"));
  expect(workers.map((v) => [v.cpu, v.memory, v.running])).toEqual([
    [4, 4, true],
    [4, 4, true],
    [4, 4, true],
  ]);
  const sizes = up.outputs.workerVms?.value as { cpu: number; memoryMb: number }[];
  expect(sizes.map((w) => [w.cpu, w.memoryMb])).toEqual([
    [4, 4096],
    [4, 4096],
    [4, 4096],
  ]);
});

test("destroy leaves nothing on the server", async () => {
  await stack.destroy(streams).catch((e: Error) => fail(`destroy failed: ${e.message}`));
  expect(await listVms(box.sim.url)).toEqual([]);
});
