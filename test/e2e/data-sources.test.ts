// getNodes() and getVms() in a program, through the real engine: preview
// already shows their values (and a VM placed by them shows its node), `up`
// places the VM on the node with the most free memory, a connection given to
// them reads another server, a server that cannot be reached fails the
// program with the sentence the Vm checks use, and offline previews leave
// their values unknown.
import * as path from "node:path";
import { startSimulator } from "../../simulator";
import { failureOf, newFleet, type Fleet } from "./harness";
import { closedPort } from "./closed-port";

jest.setTimeout(300_000);

const PROGRAM = path.join(__dirname, "programs", "cluster");
// Free memory: pve1 32 GiB, pve2 40 (64 less a VM using 24), pve3 64. The
// emptiest is pve3.
const NODES = [
  { name: "pve1", maxCpu: 16, maxMemoryMb: 32_768 },
  { name: "pve2", maxCpu: 32, maxMemoryMb: 65_536 },
  { name: "pve3", maxCpu: 8, maxMemoryMb: 65_536 },
];

let fleet: Fleet;
beforeEach(async () => {
  fleet = await newFleet({ nodes: NODES }, { program: PROGRAM });
  fleet.sim.addVm({
    vmid: 150,
    name: "big-150",
    os: "debian",
    node: "pve2",
    memoryMb: 32_768,
    running: true,
    memoryUsedMb: 24_576,
  });
  fleet.sim.addVm({ vmid: 151, name: "small-151", os: "ubuntu", node: "pve1", memoryMb: 2048, running: false });
});
afterEach(async () => {
  await fleet.destroy().catch(() => undefined);
  await fleet.dispose();
});

const output = (f: Fleet) => f.last.output.join("");

test("preview shows the nodes, the VMs and the node chosen; up places the VM there", async () => {
  await fleet.stack.setConfig("place", { value: "true" });
  const preview = await fleet.preview();
  expect(preview.changeSummary).toEqual({ create: 3 }); // the stack, its identity and the VM
  const text = output(fleet);
  expect(text).toMatch(/emptiest\s*:\s*"pve3"/);
  expect(text).toMatch(/node\s*:\s*"pve3"/); // the Vm's input, known at preview
  expect(fleet.sim.stats().installsStarted).toBe(0);

  const up = await fleet.up();
  const nodes = up.outputs.nodeList!.value as Array<Record<string, unknown>>;
  // As read at the start of the run: the placed VM is not on pve3 yet.
  expect(nodes).toEqual([
    { name: "pve1", running: true, cores: 16, memoryGb: 32, memoryUsedGb: 0, memoryFreeGb: 32, diskGb: 100 },
    { name: "pve2", running: true, cores: 32, memoryGb: 64, memoryUsedGb: 24, memoryFreeGb: 40, diskGb: 100 },
    { name: "pve3", running: true, cores: 8, memoryGb: 64, memoryUsedGb: 0, memoryFreeGb: 64, diskGb: 100 },
  ]);
  expect(up.outputs.nodeList!.secret).toBe(false);
  const vms = up.outputs.vmList!.value as Array<Record<string, unknown>>;
  expect(vms).toEqual([
    expect.objectContaining({
      vmid: 150,
      name: "big-150",
      node: "pve2",
      memoryGb: 32,
      memoryUsedGb: 24,
      disabled: false,
    }),
    expect.objectContaining({
      vmid: 151,
      name: "small-151",
      node: "pve1",
      running: false,
      memoryGb: 2,
      disabled: false,
    }),
  ]);
  expect(up.outputs.placedNode!.value).toBe("pve3");
  expect(fleet.sim.vms().find((v) => v.name.startsWith("placed-"))?.node).toBe("pve3");
});

test("a connection given to them reads that server, not the stack's", async () => {
  const other = await startSimulator({ speed: 2000, nodes: ["alpha", "beta"], mainNode: "alpha" });
  try {
    await fleet.stack.setConfig("clusterEndpoint", { value: other.url });
    const up = await fleet.up();
    expect((up.outputs.nodeList!.value as Array<{ name: string }>).map((n) => n.name)).toEqual(["alpha", "beta"]);
    expect(up.outputs.vmList!.value).toEqual([]);
  } finally {
    await other.close();
  }
});

test("a server that cannot be reached fails preview with the sentence of the Vm checks", async () => {
  const closed = `http://127.0.0.1:${await closedPort()}`;
  await fleet.stack.setConfig("goPveQemu:endpoint", { value: closed });
  const message = await failureOf(fleet.preview());
  // At the refusal itself: no connect or request timeout waited out (it would name its limit instead).
  expect(message).toContain(`getNodes: the go-pve-qemu server at ${closed} cannot be reached (`);
  expect(message).toContain("failed: connection refused (is go-pve-qemu running and listening there?)");
  expect(message).not.toMatch(/within \d+ ms/);
  expect(message).toContain("goPveQemu:offline true");
  expect(message).not.toContain("unhandled exception"); // the message alone, no stack trace
});

test("offline, preview leaves their values unknown and asks nothing; up reads the server", async () => {
  await fleet.stack.setAllConfig({ place: { value: "true" }, "goPveQemu:offline": { value: "true" } });
  const lists = () => fleet.sim.stats().requests.list ?? 0;
  const before = lists();
  const preview = await fleet.preview();
  expect(preview.changeSummary).toEqual({ create: 3 }); // the stack, its identity and the VM
  expect(output(fleet)).toMatch(/node\s*:\s*\[unknown\]/);
  expect(lists()).toBe(before);
  const up = await fleet.up();
  expect(up.outputs.placedNode!.value).toBe("pve3");
});
