// Answers that settle a deployment at once, through the real engine: an
// `event: error` frame, the server's own refusal passed on with 200, a failed
// `qm shutdown`; and a gateway's JSON 504 while the server installs, which is
// followed to the VM, never left outside state: for a name the user gave, the
// VM is taken on evidence, or the failure names it and the step that takes it in;
// the same for a stream cut before the server named the VMID.
import { simulatedBounds } from "../../scripts/sim-bounds";
import { failureOf, newFleet, orphans, type Fleet } from "./harness";

jest.setTimeout(300_000);

const SPEED = 2000;
let fleet: Fleet;
beforeEach(async () => {
  fleet = await newFleet({ speed: SPEED });
  // The server's step bounds scaled to the simulator, so a follow is seconds, not the real half hour.
  for (const [key, value] of Object.entries({ ...simulatedBounds(SPEED), "goPveQemu:pollIntervalMs": "100" })) {
    await fleet.stack.setConfig(key, { value });
  }
});
afterEach(() => fleet.dispose());

const seconds = async (op: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await op();
  return (performance.now() - t0) / 1000;
};

test("an `event: error` frame fails up within seconds; the VM it left is kept as partially created, and destroy removes it", async () => {
  fleet.sim.addFault({ kind: "error-frame", op: "install", step: "waiting for ready", name: "frame", times: 1 });
  await fleet.setVms({ frame: { os: "ubuntu", version: "24.04", name: "frame", vmid: 140 } });
  let message = "";
  const took = await seconds(async () => (message = await failureOf(fleet.up())));
  expect(took).toBeLessThan(20);
  expect(message).toMatch(/operation failed/);
  // a verdict, not a follow that happened to end soon against the scaled bounds
  expect(fleet.diagnosticsFor("frame").some((l) => /operation failed/.test(l))).toBe(true);
  expect(fleet.diagnosticsFor("frame", "warning").filter((l) => /following VM/.test(l))).toEqual([]);
  const res = fleet.resources().frame;
  expect(res?.id).toBe("140");
  expect(res!.initErrors?.length).toBeGreaterThan(0);
  expect(res!.outputs.installComplete).toBe(false);
  expect(orphans(fleet)).toEqual([]);
  await fleet.destroy();
  expect(fleet.sim.vms()).toEqual([]);
});

test("the server's refusal passed on with 200, a VMID pinned: up fails in seconds, nothing anywhere", async () => {
  fleet.sim.addFault({
    kind: "http",
    op: "install",
    status: 200,
    contentType: "application/json; charset=utf-8",
    body: '{"success":false,"message":"please check your input:Key: \'Config.OS\' Error"}',
    times: 1,
  });
  await fleet.setVms({ pinned: { os: "ubuntu", version: "24.04", name: "pinned", vmid: 141 } });
  let message = "";
  const took = await seconds(async () => (message = await failureOf(fleet.up())));
  expect(took).toBeLessThan(60);
  expect(message).toMatch(/the server refused the install: .*please check your input.*nothing was created/);
  expect(fleet.sim.vms()).toEqual([]);
  expect(fleet.resources()).toEqual({});
});

test("a gateway's JSON 504 while the server installs: followed, each VM in state (pinned and auto), no orphan", async () => {
  fleet.sim.addFault({ kind: "gateway", op: "install", times: 2 });
  await fleet.setVms({
    pinned: { os: "ubuntu", version: "24.04", name: "gwpin", vmid: 142 },
    auto: { os: "debian", version: "12" },
  });
  const up = await fleet.up();
  expect(up.summary.result).toBe("succeeded");
  const resources = fleet.resources();
  expect(resources.pinned?.id).toBe("142");
  expect(resources.auto?.id).toBeDefined();
  expect(fleet.sim.vms()).toHaveLength(2);
  expect(orphans(fleet)).toEqual([]);
  expect(fleet.diagnosticsFor("pinned", "warning").some((l) => /HTTP 504 in JSON came from a gateway/.test(l))).toBe(
    true,
  );
});

describe("a gateway's JSON 504 after 3 s for a named VM whose VMID the server picks (adv-gw504)", () => {
  const adv = { os: "ubuntu", version: "24.04", name: "adv-gw504" };

  test("the one new VM of its name, none before: taken into state, no orphan", async () => {
    fleet.sim.addFault({ kind: "gateway", op: "install", ms: 3_000, times: 1 });
    await fleet.setVms({ adv });
    const up = await fleet.up();
    expect(up.summary.result).toBe("succeeded");
    const id = fleet.resources().adv?.id;
    expect(fleet.sim.vm(Number(id))).toMatchObject({ name: `adv-gw504-${id}`, running: true });
    expect(orphans(fleet)).toEqual([]);
    expect(fleet.diagnosticsFor("adv", "warning").join("\n")).toMatch(
      new RegExp(`VM adv-gw504-${id} \\(${id}\\) is taken as this install's`),
    );
  });

  test("a VM of that name was there before: up fails naming the new VM and its one step, which takes it in", async () => {
    fleet.sim.addVm({ vmid: 150, name: "adv-gw504-150", requestedName: "adv-gw504", running: true });
    fleet.sim.addFault({ kind: "gateway", op: "install", ms: 3_000, times: 1 });
    await fleet.setVms({ adv });
    const message = await failureOf(fleet.up());
    const made = fleet.sim.vms().filter((vm) => vm.vmid !== 150);
    expect(made).toHaveLength(1);
    const vmid = made[0]!.vmid;
    expect(message).toMatch(new RegExp(`VM adv-gw504-${vmid} \\(${vmid}\\) appeared on `));
    expect(message).toContain(`declare \`vmid: ${vmid}\` and \`adopt: true\` on this resource`);
    expect(message).not.toMatch(/nothing was (made|created)/);
    expect(fleet.resources().adv).toBeUndefined();
    await fleet.setVms({ adv: { ...adv, vmid, adopt: true } });
    expect((await fleet.up()).summary.result).toBe("succeeded");
    expect(fleet.resources().adv?.id).toBe(String(vmid));
    expect(fleet.sim.stats().installsStarted).toBe(1);
  });
});

// Chaos campaign, seed 4 round 3 (C2): the up once failed at this cut asking to adopt by hand, the server
// made the VM anyway, and the next plain up installed a second one beside it.
test('a stream cut at step "checking VMID" for a named VM the server numbers: its VM in state, no orphan; the next up installs nothing', async () => {
  fleet.sim.addFault({ kind: "cut", op: "install", step: "checking VMID", name: "c0v3", times: 1 });
  await fleet.setVms({ c0v3: { os: "ubuntu", version: "24.04", name: "c0v3" } });
  expect((await fleet.up()).summary.result).toBe("succeeded");
  const id = fleet.resources().c0v3?.id;
  expect(fleet.sim.vm(Number(id))).toMatchObject({ name: `c0v3-${id}`, running: true });
  expect(orphans(fleet)).toEqual([]);
  expect(fleet.diagnosticsFor("c0v3", "warning").join("\n")).toMatch(
    new RegExp(`VM c0v3-${id} \\(${id}\\) is taken as this install's`),
  );
  const again = await fleet.up();
  expect(again.summary.resourceChanges).not.toHaveProperty("create");
  expect(fleet.sim.stats().installsStarted).toBe(1);
  expect(fleet.sim.vms()).toHaveLength(1);
});

test("a failed qm shutdown: the cpu change stops the VM hard at once and the update succeeds, well under 30 s", async () => {
  await fleet.setVms({ sd: { os: "ubuntu", version: "24.04", name: "sd", vmid: 143 } });
  await fleet.up();
  fleet.sim.addFault({ kind: "fail", op: "shutdown", vmid: 143, times: 1 });
  await fleet.setVms({ sd: { os: "ubuntu", version: "24.04", name: "sd", vmid: 143, cpu: 4 } });
  let result: Awaited<ReturnType<Fleet["up"]>> | undefined;
  const took = await seconds(async () => (result = await fleet.up()));
  expect(result!.summary.result).toBe("succeeded");
  expect(took).toBeLessThan(30);
  expect(fleet.sim.vm(143)).toMatchObject({ cpu: 4, status: "running" });
  expect(fleet.diagnosticsFor("sd", "warning").join("\n")).toMatch(
    /the server's qm shutdown failed [\s\S]*stopping it hard/,
  );
});
