// After two Ctrl-Cs early in three installs on the dynamic provider (pulumi
// and the provider gone, pending creates left), the next `up` with recovery
// takes each install over: every VM in state once with its IP, the server's
// VMs the state's, and once the server has finished a preview plans nothing.
// (One Ctrl-C on both ways in: ctrl-c-recovery.test.ts; a file of its own so
// that the two run side by side.)
import { upWithRecovery } from "../../provider/recover";
import { THREE, doubleCtrlC, expectStateIsServer, pinnedInstallBegun, until } from "./ctrl-c";
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(600_000);

let fleet: Fleet;
afterEach(() => fleet?.dispose());

test("two Ctrl-Cs early in three installs on the dynamic provider: the next up takes each over, every IP in the outputs", async () => {
  fleet = await newFleet({ speed: 2 });
  await fleet.setVms(THREE);
  await fleet.setSetting("pollIntervalMs", "500");
  await doubleCtrlC(fleet, () => pinnedInstallBegun(fleet) && fleet.sim.vms().length < 3);
  expect(fleet.pendingOperations().length).toBeGreaterThan(0);
  const next = await upWithRecovery(fleet.stack, {});
  expect(next.summary.result).toBe("succeeded");
  await until(() => fleet.sim.vms().length >= 3, "the server's three VMs");
  expectStateIsServer(fleet);
  for (const r of Object.values(fleet.resources())) expect(r.outputs.ip).toMatch(new RegExp(`\\.${r.id}$`));
  fleet.sim.settings({ speed: 2000 });
  await fleet.sim.idle();
  expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 3 });
});
