// Pulumi's resource options on the resource plugin, through the real engine
// from a YAML program, each as Pulumi documents it (docs/resource-options.md
// says what each does to a Vm): protect, retainOnDelete, ignoreChanges,
// additionalSecretOutputs, deleteBeforeReplace, aliases, import and
// deletedWith. (replaceOnChanges: yaml-diff.test.ts; customTimeouts: the
// timeouts tests.) One stack; each step writes the program anew.
import * as fs from "node:fs";
import * as path from "node:path";
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer, type Driver, type Run } from "./harness";

jest.setTimeout(300_000);

const PROJECT = "consumer-yaml-options";
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** One Vm of the program: its properties (os and version added) and its options. */
interface Declared {
  props: Record<string, string | number>;
  options?: Record<string, unknown>;
}

/** The program's YAML for `vms` (JSON is YAML: each value written as JSON). */
function program(vms: Record<string, Declared>): string {
  const lines = [`name: ${PROJECT}`, "runtime: yaml", "resources:"];
  for (const [name, { props, options }] of Object.entries(vms)) {
    lines.push(`  ${name}:`, "    type: gopveqemu:Vm", "    properties:");
    for (const [k, v] of Object.entries({ os: "ubuntu", version: "24.04", ...props }))
      lines.push(`      ${k}: ${JSON.stringify(v)}`);
    if (options) {
      lines.push("    options:");
      for (const [k, v] of Object.entries(options)) lines.push(`      ${k}: ${JSON.stringify(v)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const urnOf = (name: string) => `urn:pulumi:consumer::${PROJECT}::gopveqemu:index:Vm::${name}`;

let consumer: Consumer;
let workDir = "";

/** Writes the step's program and runs `op`. */
async function step(vms: Record<string, Declared>, op: "up" | "preview" | "destroy"): Promise<Run> {
  fs.writeFileSync(path.join(workDir, "Pulumi.yaml"), program(vms));
  return consumer.run(op);
}

const shown = (run: Run) => `exit ${run.code}\n${run.output.slice(-3000)}`;
const onServer = () =>
  consumer.sim
    .vms()
    .map((v) => v.vmid)
    .sort();
const inState = () =>
  consumer
    .vms()
    .map((v) => Number(v.id))
    .sort();

beforeAll(async () => {
  const yaml = yamlDriver("yaml-options");
  // The driver's own, with the program's folder noted: each step writes its program there.
  const driver: Driver = { ...yaml, prepare: (dir) => ((workDir = dir), yaml.prepare(dir)) };
  consumer = await newConsumer(driver);
  await consumer.setConfig({ "gopveqemu:endpoint": consumer.endpoint });
}, 600_000);
afterAll(() => consumer?.dispose());

const FIRST: Record<string, Declared> = {
  guarded: { props: { vmid: 181 }, options: { protect: true } },
  kept: { props: { vmid: 182 }, options: { retainOnDelete: true } },
  steady: { props: { vmid: 183, cpu: 2 }, options: { ignoreChanges: ["cpu"] } },
  hushed: { props: { vmid: 184 }, options: { additionalSecretOutputs: ["ip"] } },
  named: { props: { name: "named" }, options: { deleteBeforeReplace: true } },
  old: { props: { vmid: 186 } },
  parent: { props: { vmid: 187 } },
};
let now: Record<string, Declared> = FIRST;

test("up: every VM made; additionalSecretOutputs keeps ip a secret in state, the others' ips plain", async () => {
  now = { ...FIRST, child: { props: { vmid: 188 }, options: { deletedWith: "${parent}" } } };
  expect(shown(await step(now, "up"))).toMatch(/^exit 0\n/);
  expect(onServer()).toEqual(inState());
  const checkpoint = JSON.parse(
    consumer
      .stateText()
      .split("\n")
      .find((l) => l.startsWith("{")) ?? "{}",
  );
  void checkpoint;
  const outputs = (vmid: number) => consumer.vms().find((v) => Number(v.id) === vmid)!.outputs;
  expect((outputs(184).ip as Record<string, unknown>)[SECRET_SIG]).toBeDefined();
  expect(consumer.stateText()).not.toContain("192.168.0.184");
  expect(outputs(183).ip).toBe("192.168.0.183");
});

test("ignoreChanges: a new cpu for steady is no change, and the server's VM keeps its cpu", async () => {
  now = { ...now, steady: { ...now.steady!, props: { vmid: 183, cpu: 4 } } };
  expect(shown(await step(now, "preview"))).toMatch(/^exit 0\n/); // --expect-no-changes
  expect(shown(await step(now, "up"))).toMatch(/^exit 0\n/);
  expect(consumer.sim.vm(183)!.cpu).toBe(2);
});

test("deleteBeforeReplace: a named VM replaced on a version change is deleted before its successor is made", async () => {
  now = { ...now, named: { ...now.named!, props: { name: "named", version: "22.04" } } };
  // Watched on the server while the replace runs: never two VMs of that name at once.
  let most = 0;
  const watch = setInterval(() => {
    most = Math.max(most, consumer.sim.vms().filter((v) => v.name.startsWith("named-")).length);
  }, 20);
  const up = await step(now, "up");
  clearInterval(watch);
  expect(shown(up)).toMatch(/^exit 0\n/);
  expect(most).toBe(1);
  const after = consumer.sim.vms().filter((v) => v.name.startsWith("named-"));
  expect(after).toHaveLength(1);
  expect(after[0]!.version).toBe("22.04");
});

test("aliases: old renamed with an alias is the same VM (no change, same VMID); without one it would be replaced", async () => {
  const { old, ...rest } = now;
  now = { ...rest, renamed: { ...old!, options: { aliases: [urnOf("old")] } } };
  expect(shown(await step(now, "preview"))).toMatch(/^exit 0\n/); // --expect-no-changes
  expect(shown(await step(now, "up"))).toMatch(/^exit 0\n/);
  expect(inState()).toContain(186);
  expect(consumer.sim.vm(186)).toBeDefined();
});

test("import: a VM made outside Pulumi is taken into state by the option, with no install", async () => {
  consumer.sim.addVm({ vmid: 189, name: "legacy-189", requestedName: "legacy", running: true, user: "ubuntu" });
  const installs = consumer.sim.stats().installsStarted;
  now = { ...now, legacy: { props: { vmid: 189, name: "legacy" }, options: { import: "189" } } };
  const up = await step(now, "up");
  expect(shown(up)).toMatch(/^exit 0\n/);
  expect(up.output).toMatch(/legacy\s+import/);
  expect(consumer.sim.stats().installsStarted).toBe(installs);
  expect(inState()).toContain(189);
  // once imported, the option no longer matters: a preview without it plans nothing
  now = { ...now, legacy: { props: { vmid: 189, name: "legacy" } } };
  expect(shown(await step(now, "preview"))).toMatch(/^exit 0\n/);
});

test("retainOnDelete and deletedWith: removed from the program, each leaves state and its VM stays on the server", async () => {
  now = Object.fromEntries(Object.entries(now).filter(([name]) => !["kept", "parent", "child"].includes(name)));
  expect(shown(await step(now, "up"))).toMatch(/^exit 0\n/);
  expect(inState()).not.toContain(182);
  expect(inState()).not.toContain(188);
  // kept: retained; child: deleted with parent, which was deleted: its delete is the parent's (so never called)
  expect(consumer.sim.vm(182)).toBeDefined();
  expect(consumer.sim.vm(188)).toBeDefined();
  expect(consumer.sim.vm(187)).toBeUndefined();
});

test("protect: destroy refuses the protected VM and deletes nothing of it; unprotected, destroy removes it", async () => {
  const refused = await step(now, "destroy");
  expect(refused.code).not.toBe(0);
  expect(refused.output).toMatch(/protect/i);
  expect(refused.output).toMatch(/guarded/);
  expect(consumer.sim.vm(181)).toBeDefined();
  now = { ...now, guarded: { props: { vmid: 181 } } };
  expect(shown(await step(now, "up"))).toMatch(/^exit 0\n/);
  expect(shown(await step(now, "destroy"))).toMatch(/^exit 0\n/);
  expect(inState()).toEqual([]);
  // what the program asked to keep stays: retainOnDelete's and deletedWith's VMs
  expect(onServer()).toEqual([182, 188]);
});
