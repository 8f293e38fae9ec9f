// The dynamic provider's Vm methods in-process, over one provider core,
// against the simulator: the engine's keys (the serialized provider, the
// URN, the stack's identity) taken off on the way in and put back on every
// answer, a VM made, read and deleted, and a deleted VM answered as gone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { dynamicVmMethods } from "../../provider/dynamic/vm-methods";
import { configure, type ProviderCore } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { startSimulator, type SimulatorHandle } from "../../simulator";

const URN = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/goPveQemu:Vm::web";
const KEYS = { __provider: "exports.handler = ...", __urn: URN };
const IDENTITY = "b".repeat(32);

let sim: SimulatorHandle;
let journalDir: string;
let core: ProviderCore;

beforeAll(async () => {
  sim = await startSimulator({ speed: 2000, sshKey: true, imageCache: ["ubuntu/24.04"] });
  journalDir = mkdtempSync(path.join(tmpdir(), "dynamic-methods-"));
  // Lines go to a log that keeps nothing: the test reads the answers.
  const quiet = () => async () => undefined;
  core = configure({ env: { GO_PVE_QEMU_JOURNAL_DIR: journalDir }, engineUnknown: ENGINE_UNKNOWN, log: quiet });
  const config: Record<string, string> = { "goPveQemu:endpoint": sim.url, "goPveQemu:pollIntervalMs": "20" };
  core.configure((key) => config[key], new Map());
});

afterAll(async () => {
  await sim.close();
  rmSync(journalDir, { recursive: true, force: true });
});

test("check, create, read and delete through the dynamic provider's bags", async () => {
  const vm = dynamicVmMethods(core);
  const news = { os: "ubuntu", version: "24.04", name: "web", ...KEYS, __stackIdentity: IDENTITY };
  const checked = await vm.check({}, news);
  expect(checked.failures).toEqual([]);
  // The engine's keys and the stack's identity go back as given.
  expect(checked.inputs).toMatchObject({ ...KEYS, __stackIdentity: IDENTITY, os: "ubuntu" });

  const made = await vm.create(checked.inputs);
  expect(made.id).toMatch(/^\d+$/);
  expect(made.outs).toMatchObject({ ...KEYS, vmName: `web-${made.id}`, vmid: Number(made.id) });
  expect(made.outs).not.toHaveProperty("__stackIdentity");

  const found = await vm.read(made.id, made.outs);
  expect(found).toMatchObject({ id: made.id, props: { ...KEYS, vmid: Number(made.id) } });

  await vm.delete(made.id, found.props!);
  await expect(vm.read(made.id, found.props)).resolves.toEqual({ id: "", props: {} });
});
