// examples/placement through the real engine against a simulator with three
// nodes: preview already shows where each VM goes (getNodes() is read when
// the program runs), up places them there (the server's own node included:
// the provider learns it from the refused migration and installs there
// without `node`; getNodes() marks it from then on), the next preview is empty although
// the placed VMs changed what is free (ignoreChanges on node), and destroy
// leaves only the VM that was there before.
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { listVms, newSandbox, type Sandbox } from "./support";

jest.setTimeout(180_000);

let box: Sandbox;
let stack: Stack;
const output: string[] = [];
const streams = { onOutput: (s: string) => output.push(s) };

beforeAll(async () => {
  box = await newSandbox(undefined, { nodes: ["pve1", "pve2", "pve3"] });
  // pve2 is busy: 64 of its 128 GiB in use. pve1 (the server's own) and pve3 are the emptiest.
  box.sim.addVm({
    vmid: 200,
    name: "busy-200",
    os: "debian",
    node: "pve2",
    memoryMb: 32_768,
    memoryUsedMb: 65_536,
    running: true,
  });
  const workDir = box.copyExample("placement");
  const pulumiCommand = await PulumiCommand.get({
    root: path.dirname(box.env.GO_PVE_QEMU_ENGINE_BIN!),
    skipVersionCheck: true,
  });
  stack = await LocalWorkspace.createOrSelectStack({ stackName: "test", workDir }, { envVars: box.env, pulumiCommand });
  await stack.setAllConfig({ "goPveQemu:endpoint": { value: box.sim.url }, workerCount: { value: "2" } });
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

const nodeOf = async (prefix: string) =>
  (await listVms(box.sim.url)).find((v) => v.name.startsWith(`${prefix}-`))?.node;

test("preview shows each VM's node from getNodes(); up places them: the db on the emptiest, the workers spread", async () => {
  output.length = 0;
  const preview = await stack
    .preview({ ...streams, diff: true })
    .catch((e: Error) => fail(`preview failed: ${e.message}`));
  expect(preview.changeSummary).toEqual({ create: 5 }); // the stack, its identity and three VMs
  const text = output.join("");
  // ties by name: pve1 first
  expect(text.match(/node\s*:\s*"pve1"/g)).toHaveLength(2); // db and worker-0
  expect(text.match(/node\s*:\s*"pve3"/g)).toHaveLength(1); // worker-1
  expect(text).not.toMatch(/node\s*:\s*"pve2"/);

  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.result).toBe("succeeded");
  expect(await nodeOf("db")).toBe("pve1");
  expect(await nodeOf("worker0")).toBe("pve1");
  expect(await nodeOf("worker1")).toBe("pve3");
  expect(up.outputs.placement?.value).toEqual({ db: "pve1", workers: ["pve1", "pve3"] });
  // the first install there learned it (one refused migration, one install without `node`)
  expect(output.join("")).toContain("node pve1 is the server's own node, where it creates every VM");
  expect(box.sim.stats().installsSilent).toBeGreaterThanOrEqual(1);
  expect(box.sim.stats().installsSucceeded).toBe(3);
  expect(await listVms(box.sim.url)).toHaveLength(4); // no half-made VM left
  expect(up.outputs.vmsBefore?.value).toBe(1);
  expect(up.outputs.cluster?.value).toEqual([
    "pve1: 128 of 128 GiB free, 32 cores",
    "pve2: 64 of 128 GiB free, 32 cores",
    "pve3: 128 of 128 GiB free, 32 cores",
  ]);
});

test("the next preview is empty although the placed VMs changed what is free; a new worker goes where there is room", async () => {
  // pve3 now holds two running VMs, and pve2 frees up: the emptiest node is another than at the first run.
  box.sim.mutateVm(200, { memoryUsedMb: 0 });
  const preview = await stack.preview(streams).catch((e: Error) => fail(`preview failed: ${e.message}`));
  expect(preview.changeSummary).toEqual({ same: 5 });

  await stack.setConfig("workerCount", { value: "3" });
  const silentBefore = box.sim.stats().installsSilent;
  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.resourceChanges).toEqual({ same: 5, create: 1 });
  // 2 % 3 = 2: the third emptiest now, pve1, which getNodes() marks as the server's own (learned by the first run)
  expect(up.outputs.cluster?.value).toEqual([
    "pve1: 126.5 of 128 GiB free, 32 cores, the server's own",
    "pve2: 128 of 128 GiB free, 32 cores",
    "pve3: 127.5 of 128 GiB free, 32 cores",
  ]);
  expect(await nodeOf("worker2")).toBe("pve1");
  expect(box.sim.stats().installsSilent).toBe(silentBefore); // installed there without `node` at once
  expect(await nodeOf("db")).toBe("pve1"); // not moved
});

test("destroy leaves the VM that was there before", async () => {
  await stack.destroy(streams).catch((e: Error) => fail(`destroy failed: ${e.message}`));
  expect((await listVms(box.sim.url)).map((v) => v.vmid)).toEqual([200]);
});
