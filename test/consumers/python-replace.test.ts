// `replace_on_changes` from a Python program on the resource plugin, through
// the real engine (an Automation API inline program): the engine matches the
// option against the changed keys the plugin's Diff names, so a cpu change
// makes a new VM and removes the old one.
import * as path from "node:path";
import { ROOT } from "../../scripts/engine-env";
import { pythonDriver } from "./drivers";
import { newConsumer, type Consumer, type Run } from "./harness";

jest.setTimeout(300_000);

function shown(run: Run): string {
  return `exit ${run.code}\n${run.output.slice(-4000)}`;
}

let consumer: Consumer;
beforeAll(async () => {
  consumer = await newConsumer(pythonDriver(path.join(ROOT, "test", "consumers", "python", "replace_on_changes.py")));
}, 900_000);
afterAll(() => consumer?.dispose());

test("a cpu change replaces the VM: a new VMID on the server, the old VM gone", async () => {
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, cpu: "1" });
  const made = await consumer.run("up");
  expect(shown(made)).toMatch(/^exit 0\n/);
  const [first] = consumer.sim.vms();
  expect(first).toMatchObject({ cpu: 1 });

  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint, cpu: "2" });
  const replaced = await consumer.run("up");
  expect(shown(replaced)).toMatch(/^exit 0\n/);
  expect(replaced.output).toMatch(/1 replaced/);
  const now = consumer.sim.vms();
  expect(now.map((v) => v.cpu)).toEqual([2]);
  expect(now[0]!.vmid).not.toBe(first!.vmid);
});
