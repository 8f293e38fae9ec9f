// Whose VM it is, through the real engine:
// - the twins: two teams, each with its own backend, run the same project,
//   stack and resource names against one server; each gets its own VM, and
//   each team's destroy leaves the other's alone;
// - a deployment killed mid-install: the next preview says which VM the next
//   up takes over, and the up takes it over, installing nothing again.
import { spawn } from "node:child_process";
import { simulatedBounds } from "../../scripts/sim-bounds";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { BOTH_WAYS_IN, newFleet, orphans, type Fleet } from "./harness";

jest.setTimeout(300_000);

const UNNAMED = { web: { os: "ubuntu", version: "24.04" } };

describe.each(BOTH_WAYS_IN)("on the %s provider", (via) => {
  describe("the twins: the same project, stack and resource names on two backends, one server", () => {
    let sim: SimulatorHandle;
    let teamA: Fleet;
    let teamB: Fleet;
    beforeAll(async () => {
      sim = await startSimulator({ speed: 2000 });
      // newFleet gives each its own backend; the project (fleet), stack (e2e) and resource (web) are the same
      teamA = await newFleet({}, { sim, via });
      teamB = await newFleet({}, { sim, via });
      await teamA.setVms(UNNAMED);
      await teamB.setVms(UNNAMED);
    });
    afterAll(async () => {
      await teamA?.dispose();
      await teamB?.dispose();
      await sim?.close();
    });

    test("each team's up makes its own VM; neither takes over the other's", async () => {
      await teamA.up();
      const b = await teamB.up();
      expect(b.summary.result).toBe("succeeded");
      const a = teamA.resources().web!;
      const bb = teamB.resources().web!;
      expect(a.urn).toBe(bb.urn);
      expect(a.id).not.toBe(bb.id);
      expect(sim.vms()).toHaveLength(2);
      expect(teamB.diagnosticsFor("web", "warning").some((l) => /taken over|take over/.test(l))).toBe(false);
      // a second up of either is a no-op
      expect((await teamA.preview()).changeSummary).toEqual({ same: teamA.others + 1 });
    });

    test("each team's destroy removes its own VM only", async () => {
      const keep = Number(teamA.resources().web!.id);
      await teamB.destroy();
      expect(sim.vms().map((v) => v.vmid)).toEqual([keep]);
      await teamA.destroy();
      expect(sim.vms()).toEqual([]);
    });
  });

  test("killed mid-install: the next preview says which VM it takes over, and up takes it over, installing nothing again", async () => {
    // Installs of about 36 s: long enough to kill one in the middle.
    const fleet = await newFleet({ speed: 5 }, { via });
    try {
      await fleet.setVms(UNNAMED);
      const pulumi = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
        cwd: fleet.workDir,
        env: { ...process.env, ...fleet.env },
        stdio: "ignore",
        detached: true,
      });
      const exited = new Promise((resolve) => pulumi.on("exit", resolve));
      await until(() => fleet.sim.vms().length > 0); // its VM exists: killed after `creating VM`
      process.kill(-pulumi.pid!, "SIGKILL");
      await exited;
      expect(fleet.pendingOperations()).toEqual([{ type: "creating", name: "web" }]);
      await fleet.stack.cancel(); // a killed pulumi leaves its lock: `pulumi cancel`, the documented way
      fleet.sim.settings({ speed: 2000 }); // the rest of the install, quickly
      // The server's step bounds at that speed: the takeover's follow is seconds, not the real half hour.
      for (const [key, value] of Object.entries({ ...simulatedBounds(2000), "goPveQemu:pollIntervalMs": "100" })) {
        await fleet.setSetting(key, value);
      }
      await fleet.sim.idle();
      const vm = fleet.sim.vms()[0]!;

      const preview = await fleet.preview();
      expect(preview.changeSummary).toMatchObject({ create: 1 });
      expect(fleet.diagnosticsFor("web", "warning").join("\n")).toMatch(
        new RegExp(`this create will take over VM ${vm.name} \\(${vm.vmid}\\) .*its name carries this stack's mark`),
      );

      const installs = fleet.sim.stats().installsStarted;
      const up = await fleet.up();
      expect(up.summary.result).toBe("succeeded");
      expect(fleet.sim.stats().installsStarted).toBe(installs);
      expect(fleet.resources().web?.id).toBe(String(vm.vmid));
      expect(orphans(fleet)).toEqual([]);
    } finally {
      await fleet.dispose();
    }
  });
});

async function until<T>(f: () => T | undefined | false, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}
