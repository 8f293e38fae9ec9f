// discover() against the simulator: what it declares and how, what it
// leaves out and says why, that it never writes to the server, that its
// program is valid TypeScript and the same on every run, and how it fails.
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { discover, DiscoverOptionError, type Discovery } from "../../provider/discover";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { freePort } from "../../scripts/ports";
import { ROOT } from "../../scripts/engine-env";

const VM_TYPE = "pulumi-nodejs:dynamic/goPveQemu:Vm";

/** Requests that change the server; list, status and health only look. */
function writes(sim: SimulatorHandle): number {
  const looks = new Set(["list", "status", "health", "admin", "notFound"]);
  return Object.entries(sim.stats().requests)
    .filter(([op]) => !looks.has(op))
    .reduce((sum, [, n]) => sum + n, 0);
}

const otherStack = (resources: object[]) => ({ version: 3, deployment: { resources } });
const held = (name: string, outputs: object, inputs: object = {}) => ({
  urn: `urn:pulumi:prod::shop::${VM_TYPE}::${name}`,
  type: VM_TYPE,
  outputs,
  inputs,
});

let sim: SimulatorHandle;
let found: Discovery;
beforeAll(async () => {
  sim = await startSimulator({ speed: 1000, disabled: [{ vmid: 190, name: "locked-190" }] });
  const vms = [
    {
      vmid: 120,
      name: "web-120",
      requestedName: "web",
      os: "ubuntu",
      cpu: 2,
      memoryMb: 4096,
      diskGb: 32,
      running: true,
    },
    { vmid: 121, name: "legacy", os: "debian", cpu: 1, memoryMb: 3000, diskGb: 20.5, running: false, node: "pve2" },
    { vmid: 122, name: "122", os: "rockylinux", memoryMb: 2048, running: true },
    { vmid: 123, name: "web_old-123", os: "ubuntu", running: true },
    { vmid: 130, name: "db-130", os: "debian", running: true }, // held, by VMID
    { vmid: 131, name: "web-3f9a0c12-131", os: "ubuntu", running: true }, // a pending create's
    { vmid: 140, name: "notag-140", os: "", running: true },
    { vmid: 141, name: "tiny-141", os: "debian", memoryMb: 768, running: true },
    { vmid: 142, name: "big-300", os: "debian", running: true }, // named like a VMID, adopted all the same
    { vmid: 143, name: "worker-a384b16b-143", os: "ubuntu", running: true }, // some stack's, not given
    { vmid: 144, name: "backup-20240101-144", os: "debian", running: true }, // a date, no hash
    { vmid: 190, name: "locked-190", os: "debian" },
    { vmid: 300, name: "far-300", os: "debian", running: true },
  ];
  for (const vm of vms) sim.addVm(vm);
  found = await discover({
    connection: { endpoint: sim.url },
    excludeStackExports: [
      otherStack([
        held("db", { vmid: 130 }),
        // the same VMID on another server: not this one's
        held("web-120", { vmid: 120, connection: { endpoint: "http://10.9.9.9:8080" } }),
      ]),
      { version: 3, deployment: { pending_operations: [{ resource: held("web", {}, { name: "web-3f9a0c12" }) }] } },
    ],
  });
});
afterAll(() => sim.close());

const byVmid = (list: { vmid: number }[]) => list.map((v) => v.vmid);

test("declares the VMs as adopt will read them: os, sizes, node and power as listed, the newest version", () => {
  expect(byVmid(found.adopted)).toEqual([120, 121, 122, 123, 141, 142, 144]);
  const [web, legacy, unnamed, old] = found.adopted;
  expect(web).toMatchObject({
    resourceName: "web",
    vmName: "web-120",
    args: {
      os: "ubuntu",
      version: "24.04",
      name: "web",
      vmid: 120,
      node: "pve1",
      cpu: 2,
      memoryMb: 4096,
      diskGb: 32,
      running: true,
      adopt: true,
    },
  });
  // 3000 MB and 20.5 GiB read as whole GiB; stopped on another node (status is node-local there)
  expect(legacy!.args).toEqual({
    os: "debian",
    version: "13",
    vmid: 121,
    node: "pve2",
    cpu: 1,
    memoryMb: 2048,
    diskGb: 20,
    running: false,
    adopt: true,
  });
  expect(legacy!.notes).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/memory 2 GiB and disk 20 GiB as the list truncates them/),
      expect.stringMatching(/no name: "legacy" is not <name>-121/),
    ]),
  );
  expect(unnamed).toMatchObject({ resourceName: "vm-122", args: { os: "rockylinux", version: "10", vmid: 122 } });
  expect(unnamed!.args).not.toHaveProperty("name");
  // A name a Vm does not take is left out: adopt then checks the VMID alone.
  expect(old!.args).not.toHaveProperty("name");
  expect(old!.notes).toEqual(
    expect.arrayContaining([expect.stringMatching(/^no name: name: "web_old" is not allowed/)]),
  );
});

test("memory the list gives as 0 GiB (768 MB) is declared as memoryMb: 512, and the program says so", () => {
  const tiny = found.adopted.find((v) => v.vmid === 141)!;
  expect(tiny).toMatchObject({ resourceName: "tiny", args: { name: "tiny", memoryMb: 512, adopt: true } });
  const note =
    "memoryMb: 512 written for memory the list gives as 0 GiB (512 to 1023 MB): the least the server gives, " +
    "and what an install without `ram` has; adopting takes it as the VM's, with no change";
  expect(tiny.notes).toContain(note);
  const block = found.program.split("\n");
  const at = block.findIndex((l) => l === '  tiny: new Vm("tiny", {');
  expect(at).toBeGreaterThan(0);
  // the comment above the declaration, and the figure in it
  expect(
    block
      .slice(0, at)
      .reverse()
      .find((l) => !l.startsWith("  //   - ")),
  ).toBe("  // tiny-141 (141)");
  expect(block.slice(at - 4, at)).toContain(`  //   - ${note}`);
  expect(block.slice(at, at + 12)).toContain("    memoryMb: 512,");
});

test("leaves out what the stacks hold, what the server protects, and what no declaration describes as it is, saying why", () => {
  expect(found.held.map((v) => [v.vmid, v.reasons[0]])).toEqual([
    [130, expect.stringMatching(/^held by stack shop\/prod as "db" \(its export keeps the server secret/)],
    [131, expect.stringMatching(/^held by stack shop\/prod as "web"/)],
  ]);
  expect(found.disabled).toEqual([
    { vmid: 190, vmName: "locked-190", reasons: [expect.stringMatching(/\.go_qemu_disabled/)] },
  ]);
  const why = Object.fromEntries(found.undeclared.map((v) => [v.vmid, v.reasons.join(" | ")]));
  expect(Object.keys(why).map(Number)).toEqual([140, 143, 300]);
  expect(why[140]).toMatch(/^os: the list gives "", not one of debian, ubuntu, rockylinux/);
  expect(why[143]).toMatch(/carries a Pulumi resource's hash/);
  expect(why[300]).toMatch(/^vmid: 300 is out of range; allowed 100\.\.254/);
});

test("the bulk import file holds the adopted VMs alone, by VMID, named as the program names them", () => {
  const { resources } = found.importFile;
  expect(resources.map((r) => r.id)).toEqual(["120", "121", "122", "123", "141", "142", "144"]);
  expect(resources.slice(0, 3)).toEqual([
    { type: "gopveqemu:index:Vm", name: "web", id: "120" },
    { type: "gopveqemu:index:Vm", name: "legacy", id: "121" },
    { type: "gopveqemu:index:Vm", name: "vm-122", id: "122" },
  ]);
  expect(resources.map((r) => r.name)).toEqual(found.adopted.map((v) => v.resourceName));
  // Held, protected and undeclared VMs stay out: importing them would take another stack's VM, or fail.
  const left = [...found.held, ...found.disabled, ...found.undeclared].map((v) => String(v.vmid));
  expect(left).toHaveLength(6);
  for (const id of left) expect(resources.map((r) => r.id)).not.toContain(id);
  // Each entry is only what `pulumi import --file` reads: type, name, id.
  for (const r of resources) expect(Object.keys(r).sort()).toEqual(["id", "name", "type"]);
});

test("the import file's type is the resource plugin's Vm, as the package schema names it", () => {
  const schema = JSON.parse(fs.readFileSync(path.join(ROOT, "schema", "schema.json"), "utf8")) as {
    resources: Record<string, unknown>;
  };
  expect(Object.keys(schema.resources)).toContain(found.importFile.resources[0]!.type);
});

test("writes nothing to the server and asks for the list once", () => {
  expect(writes(sim)).toBe(0);
  expect(sim.stats().requests.list).toBe(1);
});

test("the report names every VM and the counts; the program is valid TypeScript, the same on every run", async () => {
  expect(found.report[0]).toBe(`the go-pve-qemu server at ${sim.url} lists 13 VMs`);
  expect(found.report).toContain(
    "7 to adopt, 2 held by the stacks given, 1 protected by .go_qemu_disabled, 3 not declared",
  );
  expect(found.report.filter((l) => /^ {2}(adopt|held|disabled|not declared) /.test(l))).toHaveLength(13);

  const parsed = ts.transpileModule(found.program, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.CommonJS },
  });
  expect(parsed.diagnostics).toEqual([]);
  expect(found.program).toContain('import { Vm } from "go-pve-qemu-pulumi";');
  expect(found.program.match(/^ {2}[\w"-]+: new Vm\(/gm)).toHaveLength(7);
  expect(found.program.match(/^ {2}\/\/ [\w"-]+: new Vm\(/gm)).toHaveLength(3); // the undeclared, commented out
  expect(found.program).toMatch(/\/\/ - locked-190 \(190\): the server's \.go_qemu_disabled file protects it/);

  const again = await discover({ connection: { endpoint: sim.url }, excludeStackExports: [] });
  const first = await discover({ connection: { endpoint: sim.url }, excludeStackExports: [] });
  expect(again.program).toBe(first.program);
});

test("a bad export fails before the server is asked; a bad endpoint is named", async () => {
  const lists = sim.stats().requests.list;
  await expect(
    discover({ connection: { endpoint: sim.url }, excludeStackExports: [{ nope: true }] }),
  ).rejects.toBeInstanceOf(DiscoverOptionError);
  expect(sim.stats().requests.list).toBe(lists);
  await expect(discover({ connection: { endpoint: "" } })).rejects.toMatchObject({
    option: "connection.endpoint",
    message: "connection.endpoint: is required, e.g. http://10.0.0.5:8080",
  });
  await expect(discover({ connection: { endpoint: "10.0.0.5:8080" } })).rejects.toMatchObject({
    option: "connection.endpoint",
    value: "10.0.0.5:8080",
  });
});

test("a server that cannot be reached: the sentence of the Vm checks", async () => {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  await expect(discover({ connection: { endpoint } })).rejects.toMatchObject({
    message: expect.stringMatching(new RegExp(`^the go-pve-qemu server at ${endpoint} cannot be reached \\(`)),
    code: "GPQ_UNREACHABLE",
  });
});
