// After a Ctrl-C early in three installs (at least one has not created its
// VM), the next `up` at once, through the real engine on both ways in: it
// succeeds, each VM is in state once, the server's VMs are the state's, no
// pending operation. Once the server has finished, a preview plans nothing
// and an `up` is quick, each warning naming one settle time that no run
// moves; with the bounds shortened, the next `up` records every VM
// confirmed. (Two Ctrl-Cs: ctrl-c-twice.test.ts; the YAML program on the
// plugin: test/consumers/yaml-ctrl-c.test.ts.)
import { THREE, expectStateIsServer, pinnedInstallBegun, requestsOf, until } from "./ctrl-c";
import { BOTH_WAYS_IN, newFleet, type Fleet } from "./harness";

jest.setTimeout(600_000);

let fleet: Fleet;
afterEach(() => fleet?.dispose());

/** The settle time each warning names, by VM label. */
function settleTimes(output: string): Map<string, Set<string>> {
  const times = new Map<string, Set<string>>();
  for (const m of output.matchAll(/VM (\S+ \(\d+\))[^\n]*?it can be settled from (\S+) at the latest/g)) {
    times.set(m[1]!, (times.get(m[1]!) ?? new Set<string>()).add(m[2]!));
  }
  return times;
}

describe.each(BOTH_WAYS_IN)("on the %s provider", (via) => {
  test("one Ctrl-C early in three installs, then up at once; then a clean preview, a quick up, and confirmation after the bound", async () => {
    // Installs of about 90 s: the Ctrl-C comes during the image downloads.
    fleet = await newFleet({ speed: 2 }, { via });
    await fleet.setVms(THREE);
    await fleet.setSetting("pollIntervalMs", "500");
    const abort = new AbortController();
    const first = fleet.up({ signal: abort.signal });
    await until(() => pinnedInstallBegun(fleet), "VM b's install on the server");
    await new Promise((r) => setTimeout(r, 3_000));
    expect(fleet.sim.vms().length).toBeLessThan(3); // at least one install has not reached "creating VM"
    abort.abort(); // the Automation API's abort: SIGINT to pulumi, as one Ctrl-C
    await expect(first).rejects.toThrow(/cancel/i);

    const t0 = Date.now();
    const next = await fleet.up();
    const took = (Date.now() - t0) / 1000;
    expect(next.summary.result).toBe("succeeded");
    expect(next.stdout).not.toMatch(/no longer exists|--replace/);
    expect(took).toBeLessThan(150); // about one install's time at this speed
    await until(() => fleet.sim.vms().length >= 3);
    expectStateIsServer(fleet);

    fleet.sim.settings({ speed: 2000 });
    await fleet.sim.idle();
    const looked = await requestsOf(fleet.sim, () => fleet.preview());
    const preview = looked.result;
    expect(preview.changeSummary).toEqual({ same: fleet.others + 3 });
    // Quick: it asks the server what the preview asked (no wait polling an unsettled install), and changes nothing.
    const upped = await requestsOf(fleet.sim, () => fleet.up());
    const quick = upped.result;
    expect(upped.writes).toEqual([]);
    expect(upped.reads).toBeLessThanOrEqual(looked.reads + 3);
    expect(quick.summary.resourceChanges).toEqual({ same: fleet.others + 3 });
    for (const [label, times] of settleTimes(next.stdout + preview.stdout + quick.stdout)) {
      expect([label, times.size]).toEqual([label, 1]);
    }
    for (const r of Object.values(fleet.resources())) {
      if (r.outputs.installState !== "unconfirmed") continue;
      const at = new Date((r.outputs.installLost as { settleBy: number }).settleBy).toISOString();
      expect(preview.stdout + quick.stdout).toContain(`it can be settled from ${at} at the latest`);
    }
    for (const r of Object.values(fleet.resources())) expect(r.outputs.ip).toMatch(new RegExp(`\\.${r.id}$`));

    for (const key of ["initScriptBoundMs", "sshWaitBoundMs", "commandBoundMs", "imageDownloadBoundMs"]) {
      await fleet.setSetting(key, "1000");
    }
    expect((await fleet.up()).summary.result).toBe("succeeded");
    for (const r of Object.values(fleet.resources())) {
      expect(r.outputs).toMatchObject({ installComplete: true, running: true });
      expect(r.outputs.installState).toBeUndefined();
    }
    expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 3 });
    expectStateIsServer(fleet);
  });
});
