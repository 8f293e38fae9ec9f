// What `pulumi preview` reports before anything is made, through the real
// engine: properties the resource does not have, a malformed endpoint in stack
// config, a node the cluster does not have, two resources pinning one VMID, an
// unreachable server (a warning, or nothing when offline); and what it says
// about a VM whose install did not finish.
import { closedPort } from "./closed-port";
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

async function failure(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    return String(err);
  }
  throw new Error("the operation succeeded, expected it to fail");
}

describe("preview refuses what would fail or be ignored at up", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet({ nodes: ["pve1", "pve2"] });
  });
  afterAll(() => fleet.dispose());

  it("a property the resource does not have, from JSON config, with the known names", async () => {
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", cpus: 4 } });
    const message = await failure(() => fleet.preview());
    expect(message).toContain("cpus: is not an input of Vm (did you mean cpu?); the inputs are os, version, name,");
    expect(fleet.sim.vms()).toEqual([]);
  });

  it("a node the cluster does not have, at preview and again at up before any install", async () => {
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", node: "pve9" } });
    const expected = `node: "pve9" is not a node of the cluster at ${fleet.sim.url}; its nodes are pve1, pve2`;
    expect(await failure(() => fleet.preview())).toContain(expected);
    expect(await failure(() => fleet.up())).toContain(expected);
    expect(fleet.sim.stats().installsStarted).toBe(0);
    expect(fleet.sim.vms()).toEqual([]);
  });

  it("two resources pinning one VMID, naming both", async () => {
    await fleet.setVms({
      web: { os: "ubuntu", version: "24.04", vmid: 150 },
      db: { os: "debian", version: "12", vmid: 150 },
    });
    const message = await failure(() => fleet.preview());
    expect(message).toMatch(/vmid: 150 is pinned by both "(web|db)" and "(web|db)" on http:\/\/127\.0\.0\.1:\d+/);
    expect(message).toContain('"web"');
    expect(message).toContain('"db"');
    expect(fleet.sim.vms()).toEqual([]);
  });

  it("a malformed goPveQemu:endpoint, naming the setting", async () => {
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04" } });
    await fleet.stack.setConfig("goPveQemu:endpoint", { value: "127.0.0.1:8080" });
    try {
      const message = await failure(() => fleet.preview());
      expect(message).toContain(
        'stack config goPveQemu:endpoint is "127.0.0.1:8080", which is not an http(s) URL; give one such as http://10.0.0.5:8080',
      );
    } finally {
      await fleet.stack.setConfig("goPveQemu:endpoint", { value: fleet.sim.url });
    }
  });
});

describe("preview with a server that cannot be reached", () => {
  let fleet: Fleet;
  let endpoint: string;
  beforeAll(async () => {
    fleet = await newFleet();
    endpoint = `http://127.0.0.1:${await closedPort()}`;
    await fleet.stack.setConfig("goPveQemu:endpoint", { value: endpoint });
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", node: "pve2" } });
  });
  afterAll(() => fleet.dispose());

  it("succeeds with a warning naming the endpoint", async () => {
    const before = fleet.events.length;
    const result = await fleet.preview();
    expect(result.changeSummary).toEqual({ create: 3 }); // the stack, its identity and the VM
    const warnings = fleet.events
      .slice(before)
      .map((e) => e.diagnosticEvent)
      .filter((d) => d !== undefined && String(d.severity) === "warning" && d.urn?.endsWith("::web"))
      .map((d) => d!.message);
    expect(warnings.join("\n")).toContain(`the go-pve-qemu server at ${endpoint} cannot be reached`);
  });

  it("with goPveQemu:offline true, succeeds without asking and without a warning", async () => {
    await fleet.stack.setConfig("goPveQemu:offline", { value: "true" });
    const before = fleet.events.length;
    const result = await fleet.preview();
    expect(result.changeSummary).toEqual({ create: 3 }); // the stack, its identity and the VM
    const warnings = fleet.events
      .slice(before)
      .map((e) => e.diagnosticEvent)
      .filter((d) => d !== undefined && String(d.severity) === "warning");
    expect(warnings).toEqual([]);
  });
});

describe("a VM whose install failed after the VM was made", () => {
  let fleet: Fleet;
  let vmid: number;
  const half = { os: "ubuntu", version: "22.04", name: "half" };
  beforeAll(async () => {
    fleet = await newFleet();
    // The SSH wait times out once: error event, close, and the VM stays behind.
    fleet.sim.addFault({ op: "install", name: "half", step: "waiting for ready", kind: "fail", times: 1 });
    await fleet.setVms({ half });
    await failure(() => fleet.up());
    vmid = Number(fleet.resources().half!.id);
  });
  afterAll(() => fleet.dispose());

  it("is kept in state with its install marked incomplete", () => {
    expect(fleet.resources().half!.outputs.installComplete).toBe(false);
    expect(fleet.sim.vm(vmid)).toBeDefined();
  });

  it("keepIncompleteInstall: true: preview shows no replace", async () => {
    await fleet.setVms({ half: { ...half, keepIncompleteInstall: true } });
    const result = await fleet.preview();
    expect(result.changeSummary.replace ?? 0).toBe(0);
  });

  it("by default preview shows a replace, naming why, and up makes a new VM and removes the old one", async () => {
    await fleet.setVms({ half });
    const preview = await fleet.preview();
    expect(preview.changeSummary.replace).toBe(1);
    expect(preview.stdout).toMatch(/installComplete/);
    const up = await fleet.up();
    expect(up.summary.resourceChanges?.replace).toBe(1);
    const now = fleet.resources().half!;
    expect(Number(now.id)).not.toBe(vmid);
    expect(now.outputs.installComplete).toBe(true);
    expect(fleet.sim.vm(vmid)).toBeUndefined();
    expect(fleet.sim.vm(Number(now.id))!.running).toBe(true);
    // and from then on preview is quiet
    expect((await fleet.preview()).changeSummary).toEqual({ same: 3 }); // the stack, its identity and the VM
  });
});

describe("a VM whose install outcome is not known yet (installState unconfirmed)", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", name: "web" } });
    await fleet.up();
    // The state the create path records when the install stream was lost and
    // the outcome could not be settled in time.
    const deployment = await fleet.stack.exportStack();
    for (const r of deployment.deployment.resources ?? []) {
      if (!String(r.urn).endsWith("::web")) continue;
      // Its bound has passed: the server's answers settle it now.
      const t = Date.now() - 60_000;
      const installLost = {
        step: "VM initialization > SSH initialization",
        phase: "sshInit",
        lostAt: t - 60_000,
        createBy: t - 60_000,
        startBy: t - 60_000,
        undoBy: t,
        settleBy: t,
        seen: true,
        reason: "its install may still be running on the server",
      };
      r.outputs = { ...r.outputs, installComplete: false, installState: "unconfirmed", installLost };
    }
    await fleet.stack.importStack(deployment);
  });
  afterAll(() => fleet.dispose());

  it("preview shows an update that settles it, not a replace, even with keepIncompleteInstall", async () => {
    expect((await fleet.preview()).changeSummary).toEqual({ same: 2, update: 1 });
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", name: "web", keepIncompleteInstall: true } });
    expect((await fleet.preview()).changeSummary).toEqual({ same: 2, update: 1 });
    // and it says what up will make of it, from what the server shows now
    expect(fleet.diagnosticsFor("web", "warning")).toContainEqual(
      expect.stringMatching(
        /^VM web-\d+ \(\d+\): its install is unconfirmed \(its install may still be running on the server\); as the server shows it now, up records it as installed/,
      ),
    );
  });

  it("the up after the bound leaves it confirmed", async () => {
    await fleet.up();
    expect(fleet.resources().web!.outputs).toMatchObject({ installComplete: true });
    expect(fleet.resources().web!.outputs.installState).toBeUndefined();
    expect((await fleet.preview()).changeSummary).toEqual({ same: 3 });
  });
});
