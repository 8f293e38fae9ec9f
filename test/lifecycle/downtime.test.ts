// What preview says of an update that shuts a running VM down: the changes,
// the update's steps, and that the VM is down meanwhile (the diff itself only
// shows `~ cpu: 2 => 4`). The steps named agree with the plan the update runs.
import { diff, UNKNOWN } from "../../provider/lifecycle";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { planUpdate } from "../../provider/lifecycle/plan";
import { inputs, stateOf } from "./fixtures";

const downtime = (state: VmState, news: VmInputs) => diff(String(state.vmid), state, news).downtime?.sentence;
const WEB = inputs({ vmid: 120, cpu: 2, memoryMb: 2048, diskGb: 16, node: "pve1" });

describe("downtime at preview", () => {
  test("a cpu change on a running VM: shutdown, set cpu, start; down meanwhile", () => {
    expect(downtime(stateOf(WEB), { ...WEB, cpu: 4 })).toBe(
      "VM web-120 (120) will be shut down for: cpu 2 -> 4 (shutdown, set cpu, start); it is down meanwhile",
    );
  });

  test("memory, disk and node together, in the update's order", () => {
    const news = { ...WEB, memoryMb: 4096, diskGb: 32, node: "pve2" };
    expect(downtime(stateOf(WEB), news)).toBe(
      "VM web-120 (120) will be shut down for: memory 2048 -> 4096 MB, disk 16 -> 32 GiB, node pve1 -> pve2 " +
        "(shutdown, set memory, grow disk, migrate, start); it is down meanwhile",
    );
    // the update's own plan: the same steps
    expect(planUpdate(stateOf(WEB), news).map((s) => s.kind)).toEqual([
      "shutdown",
      "setMemory",
      "growDisk",
      "migrate",
      "start",
    ]);
  });

  test("a value not known until the deployment may shut it down, and is said so", () => {
    expect(downtime(stateOf(WEB), { ...WEB, cpu: UNKNOWN as unknown as number })).toBe(
      `VM web-120 (120) will be shut down for: cpu 2 -> ${UNKNOWN} (shutdown, set cpu, start); it is down meanwhile`,
    );
    expect(downtime(stateOf(WEB), { ...WEB, cpu: 4, running: UNKNOWN as unknown as boolean })).toBe(
      "VM web-120 (120) will be shut down for: cpu 2 -> 4 (shutdown, set cpu, start, unless running is false); it is down meanwhile",
    );
  });

  test("a change with running false: shut down and left stopped, as asked", () => {
    expect(downtime(stateOf(WEB), { ...WEB, cpu: 4, running: false })).toBe(
      "VM web-120 (120) will be shut down for: cpu 2 -> 4 (shutdown, set cpu); it stays stopped (running: false)",
    );
  });

  test("nothing is said where nothing running goes down", () => {
    // a stopped VM is changed while stopped
    expect(downtime(stateOf(WEB, { running: false }), { ...WEB, cpu: 4, running: false })).toBeUndefined();
    // a change the server makes while it runs, or none at all
    expect(downtime(stateOf(WEB), { ...WEB, running: false })).toBeUndefined();
    expect(downtime(stateOf(WEB), WEB)).toBeUndefined();
    // a disk asked smaller than it is: left alone, no shutdown
    expect(downtime(stateOf(WEB, { diskGb: 40 }), { ...WEB, diskGb: 20 })).toBeUndefined();
    // a replace makes a new VM instead
    expect(downtime(stateOf(WEB), { ...WEB, cpu: 4, version: "22.04" })).toBeUndefined();
  });

  test("a VM with no name on record is named by its VMID", () => {
    const bare = inputs({ name: undefined, vmid: 130 });
    expect(downtime(stateOf(bare), { ...bare, cpu: 8 })).toBe(
      "VM 130 will be shut down for: cpu 2 -> 8 (shutdown, set cpu, start); it is down meanwhile",
    );
  });
});

describe("a reboot is downtime too", () => {
  test("changed rebootTriggers on a running VM: it is rebooted, and said so", () => {
    expect(downtime(stateOf(WEB), { ...WEB, rebootTriggers: ["v2"] })).toBe(
      "VM web-120 (120) will be rebooted: rebootTriggers changed; it is down until it answers again",
    );
    expect(planUpdate(stateOf(WEB), { ...WEB, rebootTriggers: ["v2"] }).map((s) => s.kind)).toEqual(["reboot"]);
  });

  test("no reboot of a VM that is stopped, or is to be", () => {
    expect(
      downtime(stateOf(WEB, { running: false }), { ...WEB, rebootTriggers: ["v2"], running: false }),
    ).toBeUndefined();
    expect(downtime(stateOf(WEB), { ...WEB, rebootTriggers: ["v2"], running: false })).toBeUndefined();
  });
});

describe("allowDowntime: false", () => {
  const KEEP = { ...WEB, allowDowntime: false };
  const refusal = (news: VmInputs) => () => diff("120", stateOf(WEB), news);

  test("a cpu change on a running VM is refused at preview, naming the property, the change and the ways out", () => {
    expect(refusal({ ...KEEP, cpu: 4 })).toThrow(
      expect.objectContaining({
        code: "GPQ_DOWNTIME_REFUSED",
        message:
          "VM web-120 (120): allowDowntime is false, and this update would take it down (cpu 2 -> 4); nothing was changed. " +
          "Ways out: set allowDowntime: true for this deployment (and back to false after it), " +
          "or make the change through a replace (`pulumi up --replace <this resource's URN>`), which makes a new VM instead of changing this one",
      }),
    );
  });

  test("memory, disk, node and reboots are refused too; a value not known yet as well", () => {
    for (const change of [{ memoryMb: 4096 }, { diskGb: 32 }, { node: "pve2" }, { rebootTriggers: ["v2"] }]) {
      expect(refusal({ ...KEEP, ...change })).toThrow(/allowDowntime is false/);
    }
    expect(refusal({ ...KEEP, cpu: UNKNOWN as unknown as number })).toThrow(/allowDowntime is false/);
  });

  test("what keeps the VM up is allowed: no change, a stopped VM, running: false asked for, a smaller disk", () => {
    expect(diff("120", stateOf(WEB), KEEP).changes).toBe(false);
    expect(diff("120", stateOf(WEB, { running: false }), { ...KEEP, cpu: 4, running: false }).update).toEqual(["cpu"]);
    expect(diff("120", stateOf(WEB), { ...KEEP, cpu: 4, running: false }).update).toEqual(["cpu", "running"]);
    expect(diff("120", stateOf(WEB, { diskGb: 40 }), { ...KEEP, diskGb: 20 }).changes).toBe(false);
    // and a replace makes a new VM
    expect(diff("120", stateOf(WEB), { ...KEEP, cpu: 4, version: "22.04" }).replaces).toEqual(["version"]);
  });

  test("downtimeGroup and allowDowntime themselves are never a change", () => {
    expect(diff("120", stateOf(WEB), { ...WEB, downtimeGroup: "web", allowDowntime: false }).changes).toBe(false);
  });
});
