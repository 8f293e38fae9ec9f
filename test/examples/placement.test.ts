// examples/placement through the real engine against a simulator with three
// nodes: preview already shows where each VM goes (getNodes() is read when
// the program runs), up places them there, the next preview is empty although
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
  // pve2 is busy: 64 of its 128 GiB in use. pve3 is the emptiest node, pve1 the server's own.
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
  expect(text.match(/node\s*:\s*"pve3"/g)).toHaveLength(2); // db and worker-0
  expect(text.match(/node\s*:\s*"pve2"/g)).toHaveLength(1); // worker-1
  expect(text).not.toMatch(/node\s*:\s*"pve1"/);

  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.result).toBe("succeeded");
  expect(await nodeOf("db")).toBe("pve3");
  expect(await nodeOf("worker0")).toBe("pve3");
  expect(await nodeOf("worker1")).toBe("pve2");
  expect(up.outputs.placement?.value).toEqual({ db: "pve3", workers: ["pve3", "pve2"] });
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
  const up = await stack.up(streams).catch((e: Error) => fail(`up failed: ${e.message}`));
  expect(up.summary.resourceChanges).toEqual({ same: 5, create: 1 });
  expect(await nodeOf("worker2")).toBe("pve2"); // 2 % 2 = 0: the emptiest now
  expect(await nodeOf("db")).toBe("pve3"); // not moved
});

test("destroy leaves the VM that was there before", async () => {
  await stack.destroy(streams).catch((e: Error) => fail(`destroy failed: ${e.message}`));
  expect((await listVms(box.sim.url)).map((v) => v.vmid)).toEqual([200]);
});
