// State written through the resource plugin by the release at commit e779e11
// (test/fixtures/upgrade/e779e11-plugin: a YAML program's four VMs, made by
// make-plugin-fixture.sh), run with this release's plugin: preview shows no
// change, up writes nothing to the server, refresh keeps every VM, destroy
// removes them all. The stack is the fixture's, imported under this
// harness's stack name; the endpoint is served at the port the fixture's VMs
// keep in their (encrypted) connection, so neither state nor program is edited.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer } from "./harness";

jest.setTimeout(300_000);

const FIXTURE = path.join(__dirname, "..", "fixtures", "upgrade", "e779e11-plugin");
const STACK = "landed";

let consumer: Consumer;
let scratch: string;
beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-upgrade-plugin-"));
  const config = fs.readFileSync(path.join(FIXTURE, `Pulumi.${STACK}.yaml`), "utf8");
  const port = Number(/gopveqemu:endpoint: http:\/\/127\.0\.0\.1:(\d+)/.exec(config)![1]);
  fs.copyFileSync(path.join(FIXTURE, "sim-state.json"), path.join(scratch, "sim-state.json"));
  consumer = await newConsumer(yamlDriver(path.join(FIXTURE, "program")), {
    port,
    stateFile: path.join(scratch, "sim-state.json"),
    passphrase: "upgrade-fixture",
  });
  // The fixture's stack under the harness's name: its URNs renamed, nothing else.
  const exported = fs
    .readFileSync(path.join(FIXTURE, "stack.json"), "utf8")
    .split(`urn:pulumi:${STACK}::`)
    .join("urn:pulumi:consumer::")
    .split(`upgrade-plugin-${STACK}`)
    .join("upgrade-plugin-consumer");
  fs.writeFileSync(path.join(scratch, "stack.json"), exported);
  const imported = await consumer.pulumi([
    "stack",
    "import",
    "--stack",
    "consumer",
    "--file",
    path.join(scratch, "stack.json"),
  ]);
  expect(imported.code).toBe(0);
  await consumer.setConfig({
    "gopveqemu:endpoint": consumer.endpoint,
    webPassword: { secret: "Upgrade-Fixture-Pw-7" },
  });
});
afterAll(async () => {
  await consumer?.dispose();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test("preview plans no change, up writes nothing, refresh keeps every VM, destroy removes them", async () => {
  const serverNames = consumer.sim
    .vms()
    .map((v) => v.name)
    .sort();
  expect(serverNames).toHaveLength(4);
  const preview = await consumer.run("preview");
  expect(preview.output).not.toMatch(/will be (replaced|updated|created|deleted)|to (create|update|replace|delete)/);
  expect(preview.code).toBe(0);

  const before = { ...consumer.sim.stats().requests };
  const up = await consumer.run("up");
  expect(up.code).toBe(0);
  const writes = Object.entries(consumer.sim.stats().requests).filter(
    ([op, n]) => !/^(list|status|admin|notFound)$/.test(op) && n !== (before[op] ?? 0),
  );
  expect(writes).toEqual([]);
  expect(
    consumer
      .vms()
      .map((v) => v.outputs.vmName)
      .sort(),
  ).toEqual(serverNames);

  expect((await consumer.run("refresh")).code).toBe(0);
  expect(consumer.vms()).toHaveLength(4);
  expect(consumer.sim.vms().find((v) => v.vmid === 121)).toMatchObject({ cpu: 2, memoryMb: 4096 });

  expect((await consumer.run("destroy")).code).toBe(0);
  expect(consumer.sim.vms()).toEqual([]);
});
