// examples/automation/index.ts, run as its README says (ts-node) with the
// endpoint of a simulator in the environment: it must go through up, outputs,
// refresh and destroy, exit 0, and leave no VM behind.
import * as fs from "node:fs";
import * as path from "node:path";
import { listVms, newSandbox, ROOT, run, tail, type Sandbox } from "./support";

jest.setTimeout(180_000);

let box: Sandbox;
beforeAll(async () => {
  box = await newSandbox();
});
afterAll(async () => {
  await box?.dispose();
});

test("the automation script runs up, refresh and destroy against the server it is given", async () => {
  const stateDir = path.join(ROOT, ".pulumi-state");
  const scratchDirs = () =>
    (fs.existsSync(stateDir) ? fs.readdirSync(stateDir) : []).filter((d) => d.startsWith("automation-"));
  const scratchBefore = scratchDirs();
  let sawVms = 0;
  // Poll the simulator while the script runs: the VMs must exist at some point.
  const poll = setInterval(() => {
    listVms(box.sim.url)
      .then((vms) => (sawVms = Math.max(sawVms, vms.length)))
      .catch(() => undefined);
  }, 200);

  const result = await run(
    path.join(ROOT, "node_modules", ".bin", "ts-node"),
    ["--transpile-only", "examples/automation/index.ts"],
    {
      env: {
        PATH: `${path.join(ROOT, "node_modules", ".bin")}${path.delimiter}${process.env.PATH}`,
        GO_PVE_QEMU_ENDPOINT: box.sim.url,
        GO_PVE_QEMU_ENGINE_BIN: box.env.GO_PVE_QEMU_ENGINE_BIN,
        AUTOMATION_VM_PASSWORD: "Correct-Horse-7",
      },
    },
  ).finally(() => clearInterval(poll));

  if (result.code !== 0) throw new Error(`exit code ${result.code}\n${tail(result.output)}`);
  const out = result.output;
  expect(out).toContain(`using the go-pve-qemu server at ${box.sim.url}`);
  expect(out).toMatch(/automation: up: succeeded, \{"create":4\}/); // the stack, its identity and the VMs
  expect(out).toMatch(
    /automation: web: +auto-web-\d+ \(VMID \d+\) at \d+\.\d+\.\d+\.\d+, user ubuntu, node pve1, running true/,
  );
  expect(out).toContain("webPassword: [secret], and it is the one set in config");
  expect(out).toMatch(/automation: refresh: succeeded/);
  expect(out).toMatch(/automation: destroy: succeeded, \{"delete":4\}/);
  expect(out).toContain("automation: removed stack automation");
  expect(out).not.toContain("Correct-Horse-7");

  expect(sawVms).toBe(2);
  expect(await listVms(box.sim.url)).toEqual([]);
  // Its scratch space is gone too.
  expect(scratchDirs()).toEqual(scratchBefore);
});
