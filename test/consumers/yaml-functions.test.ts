// The resource plugin's functions, getNodes and getVms, from a YAML program
// through the engine: up reads the cluster; at a preview with
// gopveqemu:offline they ask the server nothing and answer empty lists,
// saying so (the engine takes no unknown value from a plugin's function;
// the dynamic provider's data sources are unknown then:
// test/e2e/data-sources.test.ts); a server that cannot be reached fails
// preview naming the function.
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer } from "./harness";

jest.setTimeout(300_000);

let consumer: Consumer;
beforeAll(async () => {
  consumer = await newConsumer(yamlDriver("yaml-cluster"));
});
afterAll(() => consumer?.dispose());

test("offline, a preview asks the server nothing: empty lists, and a warning that says why", async () => {
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, "gopveqemu:offline": "true" });
  const before = { ...consumer.sim.stats().requests };
  const plan = await consumer.run("plan");
  expect(plan.code).toBe(0);
  expect(plan.output).toMatch(/getNodes: offline preview: an empty list until `pulumi up` reads the server/);
  expect(plan.output).toMatch(/getVms: offline preview/);
  expect(consumer.sim.stats().requests).toEqual(before);
});

test("up reads the cluster: the outputs are the server's nodes and VMs", async () => {
  await consumer.setConfig({ "gopveqemu:offline": "false" });
  const up = await consumer.run("up");
  expect(up.code).toBe(0);
  expect(consumer.sim.vms().map((v) => v.node)).toEqual(["pve2"]);
  expect(up.output).toMatch(/name\s*:\s*"pve1"/);
  expect(up.output).toMatch(/name\s*:\s*"pve2"/);
  expect(up.output).not.toMatch(/offline preview/);
});

test("a server that cannot be reached fails the preview, naming the function", async () => {
  await consumer.setConfig({ "gopveqemu:endpoint": "http://127.0.0.1:1" });
  const plan = await consumer.run("plan");
  expect(plan.code).not.toBe(0);
  expect(plan.output).toMatch(/getNodes: .*cannot be reached/);
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint });
  expect((await consumer.run("destroy")).code).toBe(0);
  expect(consumer.sim.vms()).toEqual([]);
});
