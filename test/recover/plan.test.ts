// The decisions of recovery, row by row: a pending create of a Vm resolved on
// evidence alone (planRecovery), and what is read from an exported deployment
// (readStackRecord).
import { listEntry } from "../lifecycle/fixtures";
import type { VmEntry } from "../../provider/client/schemas";
import { readStackRecord } from "../../provider/recover/pending";
import type { PendingVm } from "../../provider/recover/pending";
import { planRecovery } from "../../provider/recover/recover-plan";

const URN = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::i3";
const vm = (vmid: number, name: string): VmEntry => listEntry({ vmid, name });
const none = { adopt: new Map<string, number>(), discard: new Set<string>() };
const empty = { urns: new Set<string>(), vmids: new Set<number>() };
const pending = (patch: Partial<PendingVm> = {}): PendingVm => ({
  urn: URN,
  identity: "ab".repeat(16),
  os: "ubuntu",
  ...patch,
});

describe("planRecovery", () => {
  test("in state already: stale", () => {
    expect(planRecovery(pending({ name: "i3" }), [], { urns: new Set([URN]), vmids: new Set() }, none).kind).toBe(
      "in-state",
    );
  });

  test("no name: the VM carries the stack's mark, and the next up takes it over itself", () => {
    expect(planRecovery(pending(), [vm(104, "i3-abcdef01-tpe1h4-104")], empty, none).kind).toBe("marked");
    // a create of a release before the stack identity: nothing marks its VM
    expect(planRecovery(pending({ identity: undefined }), [], empty, none).kind).toBe("nothing");
  });

  test("a name and a pinned VMID: the VM at that VMID under that name is this create's", () => {
    expect(planRecovery(pending({ name: "i3", vmid: 210 }), [vm(210, "i3-210")], empty, none)).toEqual({
      urn: URN,
      kind: "journal",
      vmid: 210,
      name: "i3",
      why: "this stack's pending create pinned VMID 210 under the name i3",
    });
    // another VM holds it, it is not there, or it is held in state: nothing to take over
    expect(planRecovery(pending({ name: "i3", vmid: 210 }), [vm(210, "db-210")], empty, none).kind).toBe("nothing");
    expect(planRecovery(pending({ name: "i3", vmid: 210 }), [], empty, none).kind).toBe("nothing");
    expect(
      planRecovery(
        pending({ name: "i3", vmid: 210 }),
        [vm(210, "i3-210")],
        { urns: new Set(), vmids: new Set([210]) },
        none,
      ).kind,
    ).toBe("nothing");
  });

  test("a name, the server picking the VMID: undecided when a VM carries the name; the user's word decides", () => {
    const vms = [vm(104, "i3-104"), vm(107, "i3-107"), vm(120, "web-120")];
    const r = planRecovery(pending({ name: "i3" }), vms, empty, none);
    expect(r.kind).toBe("undecided");
    expect(r.kind === "undecided" && r.candidates.map((c) => c.vmid)).toEqual([104, 107]);
    expect(planRecovery(pending({ name: "i3" }), [vm(120, "web-120")], empty, none).kind).toBe("nothing");
    const adopt = { adopt: new Map([[URN, 107]]), discard: new Set<string>() };
    expect(planRecovery(pending({ name: "i3" }), vms, empty, adopt)).toMatchObject({
      kind: "journal",
      vmid: 107,
      name: "i3",
    });
    // --adopt of a VMID under another name, or not there: refused
    expect(planRecovery(pending({ name: "i3" }), vms, empty, { ...adopt, adopt: new Map([[URN, 120]]) }).kind).toBe(
      "nothing",
    );
    expect(planRecovery(pending({ name: "i3" }), vms, empty, { ...adopt, adopt: new Map([[URN, 999]]) }).kind).toBe(
      "nothing",
    );
    expect(planRecovery(pending({ name: "i3" }), vms, empty, { adopt: new Map(), discard: new Set([URN]) }).kind).toBe(
      "discard",
    );
  });
});

describe("readStackRecord", () => {
  test("a resource plugin's pending create and Vm are read as the dynamic provider's", () => {
    const urn = "urn:pulumi:dev::fleet::gopveqemu:index:Vm::db";
    const r = readStackRecord({
      deployment: {
        resources: [{ urn: "urn:pulumi:dev::fleet::gopveqemu:index:Vm::web", type: "gopveqemu:index:Vm", id: "121" }],
        pending_operations: [
          { type: "creating", resource: { urn, type: "gopveqemu:index:Vm", inputs: { name: "db", vmid: 150 } } },
        ],
      },
    });
    expect(r.pending).toEqual([{ urn, name: "db", vmid: 150 }]);
    expect([...r.vmidsInState]).toEqual([121]);
  });

  test("the pending Vm creates with their inputs (the identity shown), and the Vms in state", () => {
    const exported = {
      deployment: {
        resources: [
          {
            urn: "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::web",
            type: "pulumi-nodejs:dynamic/goPveQemu:Vm",
            id: "120",
          },
          { urn: "urn:pulumi:dev::fleet::pulumi:pulumi:Stack::fleet-dev", type: "pulumi:pulumi:Stack" },
        ],
        pending_operations: [
          {
            type: "creating",
            resource: {
              urn: URN,
              type: "pulumi-nodejs:dynamic/goPveQemu:Vm",
              inputs: {
                name: "i3",
                vmid: 210,
                os: "ubuntu",
                connection: { endpoint: "http://127.0.0.1:9" },
                __stackIdentity: {
                  "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
                  plaintext: '"ab12"',
                },
              },
            },
          },
          { type: "updating", resource: { urn: "urn:x", type: "pulumi-nodejs:dynamic/goPveQemu:Vm" } },
          { type: "creating", resource: { urn: "urn:y", type: "aws:s3/bucket:Bucket", inputs: {} } },
        ],
      },
    };
    const r = readStackRecord(exported);
    expect(r.pending).toEqual([
      { urn: URN, name: "i3", vmid: 210, os: "ubuntu", identity: "ab12", endpoint: "http://127.0.0.1:9" },
    ]);
    expect([...r.inState]).toEqual(["urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::web"]);
    expect([...r.vmidsInState]).toEqual([120]);
  });
});
