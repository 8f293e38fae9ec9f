// The resource plugin's Vm methods in-process, over one provider core,
// against the simulator: the wire's secrets taken off on the way in and
// marked again on the way out, the stack's identity kept among the inputs,
// a VM made, read and deleted, and a deleted VM answered as gone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { configure, type ProviderCore } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { configure as configurePlugin } from "../../provider/plugin/provider-config";
import { vmMethods } from "../../provider/plugin/vm-provider";
import { startSimulator, type SimulatorHandle } from "../../simulator";

const s = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
const isSecret = (v: unknown) => (v as Record<string, unknown> | null)?.[specialSigKey] === specialSecretSig;
const URN = "urn:pulumi:dev::p::gopveqemu:index:Vm::web";
const IDENTITY = "a".repeat(32);

let sim: SimulatorHandle;
let journalDir: string;
let core: ProviderCore;

beforeAll(async () => {
  sim = await startSimulator({ speed: 2000, sshKey: true, imageCache: ["ubuntu/24.04"] });
  journalDir = mkdtempSync(path.join(tmpdir(), "plugin-methods-"));
  // Lines go to a log that keeps nothing: the test reads the answers.
  const quiet = () => async () => undefined;
  core = configure({ env: { GO_PVE_QEMU_JOURNAL_DIR: journalDir }, engineUnknown: ENGINE_UNKNOWN, log: quiet });
  configurePlugin(core, { endpoint: sim.url, pollIntervalMs: 20, stackIdentity: s(IDENTITY) });
});

afterAll(async () => {
  await sim.close();
  rmSync(journalDir, { recursive: true, force: true });
});

test("check, create, read and delete through the plugin's wire shapes", async () => {
  const vm = vmMethods(core);
  const news = { os: "ubuntu", version: "24.04", name: "web", password: s("correct-horse-battery") };
  const checked = await vm.check(URN, {}, news);
  expect(checked.failures).toEqual([]);
  // The password stays a secret, and the provider's identity is kept among the Vm's inputs, as a secret.
  expect(isSecret(checked.inputs.password)).toBe(true);
  expect(checked.inputs.__stackIdentity).toEqual(s(IDENTITY));

  const made = await vm.create(URN, checked.inputs);
  expect(made.id).toMatch(/^\d+$/);
  expect(isSecret(made.outs.password)).toBe(true);
  expect(isSecret(made.outs.connection)).toBe(true);
  expect(made.outs).not.toHaveProperty("__urn");
  expect(made.outs.vmName).toBe(`web-${made.id}`);

  const found = await vm.read(made.id, URN, made.outs);
  expect(found.id).toBe(made.id);
  expect(found.props.vmid).toBe(Number(made.id));

  await vm.delete(made.id, URN, found.props);
  // Gone: the same answer as the dynamic provider gives.
  await expect(vm.read(made.id, URN, found.props)).resolves.toEqual({ id: "", props: {} });
});
