// A TypeScript stack moving its Vm from the dynamic provider to the resource
// plugin's SDK, through the real engine against the simulator: the SDK's Vm
// carries an alias of the dynamic type, so the engine matches the old state
// under the new type. The preview shows no replace, no create and no update
// (only the dynamic provider's StackIdentity resource goes), the up after changes
// nothing on the server, and the VM keeps the identity it was made with.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { newFleet, type Fleet } from "./harness";
import { installSdk } from "./sdk";

jest.setTimeout(300_000);

const PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Vm as DynamicVm } from "go-pve-qemu-pulumi";
import { Vm as PluginVm } from "@go-pve-qemu/pulumi";

const args = { os: "ubuntu", version: "24.04", name: "web", cpu: 2, memoryMb: 2048 } as const;
const web = new pulumi.Config().get("via") === "plugin" ? new PluginVm("web", args) : new DynamicVm("web", args);
export const vmid = web.vmid;
`;

interface Resource {
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
}

let fleet: Fleet | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fleet?.dispose();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The stack's resources with their secrets shown, as `pulumi stack export --show-secrets` prints them. */
function resources(f: Fleet): Resource[] {
  const text = execFileSync("pulumi", ["stack", "export", "--show-secrets", "--stack", "e2e"], {
    cwd: f.workDir,
    env: { ...process.env, ...f.env },
    encoding: "utf8",
  });
  return (JSON.parse(text) as { deployment: { resources: Resource[] } }).deployment.resources;
}

/** A secret input's plaintext as the export shows it. */
function plaintext(value: unknown): unknown {
  return JSON.parse((value as { plaintext: string }).plaintext);
}

test("the dynamic Vm switched to the SDK's Vm: no replace, the same VM, its identity kept, then an empty preview", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-move-to-plugin-"));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    "name: move-to-plugin\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
  );
  fs.writeFileSync(path.join(dir, "index.ts"), PROGRAM);
  installSdk(dir);
  fleet = await newFleet({}, { program: dir });
  expect((await fleet.up()).summary.result).toBe("succeeded");
  const [made] = fleet.sim.vms();
  const identity = await fleet.identity();
  expect(resources(fleet).find((r) => r.type === "pulumi-nodejs:dynamic/goPveQemu:Vm")?.id).toBe(String(made!.vmid));

  await fleet.stack.setConfig("gopveqemu:endpoint", { value: fleet.sim.url });
  await fleet.stack.setConfig("via", { value: "plugin" });
  // The stack and the Vm the same; the dynamic provider's identity resource deleted.
  expect((await fleet.preview()).changeSummary).toEqual({ same: 2, delete: 1 });

  expect((await fleet.up()).summary.result).toBe("succeeded");
  expect(fleet.sim.vms()).toEqual([made]);
  const after = resources(fleet);
  expect(after.map((r) => r.type).sort()).toEqual([
    "gopveqemu:index:Vm",
    "pulumi:providers:gopveqemu",
    "pulumi:pulumi:Stack",
  ]);
  const vm = after.find((r) => r.type === "gopveqemu:index:Vm")!;
  expect(vm.id).toBe(String(made!.vmid));
  // The identity the VM was made with stays in its inputs, whatever the plugin's provider made for the stack.
  expect(plaintext(vm.inputs?.__stackIdentity)).toBe(identity);
  const provider = after.find((r) => r.type === "pulumi:providers:gopveqemu")!;
  expect(plaintext(provider.inputs?.stackIdentity)).toMatch(/^[0-9a-f]{32}$/);

  expect((await fleet.preview()).changeSummary).toEqual({ same: 2 });
  await fleet.destroy();
  expect(fleet.sim.vms()).toEqual([]);
});
