// Whose VM is it, as pure rules: the marked name of a resource declared
// without a name (stack-name.ts), the name the previous release derived from
// the URN (kept, never evidence), how the list before an install is read
// (identity.ts), and why a replace of such a resource deletes first.
import { check, diff } from "../../provider/lifecycle";
import { derivedName, readStackName, stackName } from "../../provider/lifecycle/model/vm-names";
import type { VmEntry } from "../../provider/client/schemas";
import { beforeInstall, ownVms } from "../../provider/lifecycle/install/identity";
import type { Claim } from "../../provider/lifecycle/install/identity";
import { LIMITS } from "../../provider/lifecycle/model/input-rules";
import { ENDPOINT, inputs, stateOf } from "./fixtures";

const URN = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::web";
const ID = "5f0c7e2b9a41d3e6c8b0a7f1e2d4c6b8";
const OTHER_ID = "0e1d2c3b4a5968778695a4b3c2d1e0f9";
const MAX = LIMITS.nameMax;
const AT = Date.UTC(2026, 11, 1, 12, 0, 0);
const opts = { urn: URN, connectionDefaults: { endpoint: ENDPOINT } };
const entry = (vmid: number, name: string, os = "ubuntu"): VmEntry => ({
  vmid,
  name,
  os,
  running: true,
  node: "pve1",
  cpu: 2,
  disk: 16,
  memory: 2,
});
const claim = (patch: Partial<Claim> = {}): Claim => ({
  identity: ID,
  urn: URN,
  os: "ubuntu",
  endpoint: ENDPOINT,
  nameMax: MAX,
  ...patch,
});
const marked = (vmid: number, at = AT, identity = ID, urn = URN) =>
  entry(vmid, `${stackName(identity, urn, at, MAX)}-${vmid}`);

describe("the marked name", () => {
  test("the resource's name, this stack's mark, the install's start: it verifies for this stack's resource only", () => {
    const name = stackName(ID, URN, AT, MAX);
    expect(name).toMatch(/^web-[0-9a-f]{8}-[0-9a-z]{6}$/);
    expect(readStackName(`${name}-104`, 104, ID, URN, MAX)).toEqual({ startedAt: AT });
    // the same project, stack and resource names on another backend: another identity, no match
    expect(readStackName(`${name}-104`, 104, OTHER_ID, URN, MAX)).toBeUndefined();
    // another resource of this stack, or another VMID than the name's
    expect(readStackName(`${name}-104`, 104, ID, URN.replace("::web", "::db"), MAX)).toBeUndefined();
    expect(readStackName(`${name}-104`, 105, ID, URN, MAX)).toBeUndefined();
    // a mark anyone could write, a changed time, a hand-made name
    expect(readStackName(`web-00000000-${name.split("-").at(-1)}-104`, 104, ID, URN, MAX)).toBeUndefined();
    const [base, mark] = name.split("-");
    expect(readStackName(`${base}-${mark}-zzzzzz-104`, 104, ID, URN, MAX)).toBeUndefined();
    expect(readStackName("web-104", 104, ID, URN, MAX)).toBeUndefined();
  });

  test("within the server's name limit and the input's own rule, whatever the resource's name", () => {
    for (const resource of ["x".repeat(200), "Web_Server.1", "___"]) {
      const urn = `urn:pulumi:s::p::t::${resource}`;
      const name = stackName(ID, urn, AT, MAX);
      expect(name.length).toBeLessThanOrEqual(MAX);
      expect(check({}, { os: "ubuntu", version: "24.04", name }).failures).toEqual([]);
      expect(readStackName(`${name}-150`, 150, ID, urn, MAX)).toEqual({ startedAt: AT });
    }
    expect(stackName(ID, "urn:pulumi:s::p::t::Web_Server.1", AT, MAX)).toMatch(/^web-server-1-/);
    expect(stackName(ID, "urn:pulumi:s::p::t::___", AT, MAX)).toMatch(/^vm-/);
  });
});

describe("check leaves the name to the install", () => {
  test("a new resource without a name gets none at check: its mark depends on when its install begins", () => {
    expect(check({}, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBeUndefined();
  });

  test("a resource with the name the previous release derived from its URN keeps it, even under a renamed stack", () => {
    const olds = { os: "ubuntu", version: "24.04", name: derivedName(URN, MAX) };
    expect(check(olds, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBe(olds.name);
    const renamed = URN.replace(":dev::", ":production::");
    expect(check(olds, { os: "ubuntu", version: "24.04" }, { ...opts, urn: renamed }).inputs.name).toBe(olds.name);
  });

  test("a given name that was removed is not kept (the replace that follows installs a marked VM)", () => {
    expect(
      check({ os: "ubuntu", version: "24.04", name: "web" }, { os: "ubuntu", version: "24.04" }, opts).inputs.name,
    ).toBeUndefined();
  });

  test("never over the user's name; adopting keeps the VM's own name", () => {
    expect(check({}, { os: "ubuntu", version: "24.04", name: "web" }, opts).inputs.name).toBe("web");
    expect(check({}, { os: "ubuntu", version: "24.04", vmid: 150, adopt: true }, opts).inputs.name).toBeUndefined();
  });
});

describe("the list before an install", () => {
  test("a VM with this resource's mark is its interrupted create, at any VMID or the pinned one; the name says when it began", () => {
    expect(beforeInstall([marked(130)], claim())).toMatchObject({
      kind: "interrupted",
      own: { entry: { vmid: 130 }, startedAt: AT, evidence: "mark" },
      leftovers: [],
    });
    expect(beforeInstall([marked(130)], claim({ vmid: 130 }))).toMatchObject({ kind: "interrupted" });
    const untagged = { ...marked(130), os: "" };
    expect(beforeInstall([untagged], claim())).toMatchObject({ kind: "interrupted" });
  });

  test("the twins: the same project, stack and resource names of another backend are never taken over", () => {
    expect(beforeInstall([marked(130, AT, OTHER_ID)], claim()).kind).toBe("install");
    // nor the name the previous release derived from the URN, which any stack of these names derives too
    expect(beforeInstall([entry(130, `${derivedName(URN, MAX)}-130`)], claim()).kind).toBe("install");
    // nor a hand-made VM, nor ours at another VMID than the pinned one
    expect(beforeInstall([entry(130, "web-130")], claim()).kind).toBe("install");
    expect(beforeInstall([marked(130)], claim({ vmid: 140 })).kind).toBe("install");
    // nor anything when the program declared no stack identity
    expect(beforeInstall([marked(130)], claim({ identity: undefined })).kind).toBe("install");
  });

  test("several VMs with the mark: the first install is kept, the later ones are leftovers", () => {
    const r = beforeInstall([marked(131, AT + 60_000), marked(130, AT)], claim());
    expect(r).toMatchObject({
      kind: "interrupted",
      own: { entry: { vmid: 130 } },
      leftovers: [{ entry: { vmid: 131 } }],
    });
  });

  test("this machine's journal: the VM at the VMID it recorded, under the name the install sent", () => {
    const journal = { identity: ID, urn: URN, endpoint: ENDPOINT, name: "i3", vmid: 210, startedAt: AT, os: "ubuntu" };
    expect(beforeInstall([entry(210, "i3-210")], claim({ name: "i3", vmid: 210, journal }))).toMatchObject({
      kind: "interrupted",
      own: { evidence: "journal", startedAt: AT },
    });
    expect(
      beforeInstall([entry(104, "i3-104")], claim({ name: "i3", journal: { ...journal, vmid: 104 } })),
    ).toMatchObject({
      kind: "interrupted",
      own: { entry: { vmid: 104 } },
    });
    // its VM not there yet: the server may still create it; waited for, not installed twice
    expect(beforeInstall([], claim({ name: "i3", vmid: 210, journal }))).toEqual({ kind: "pending", journal });
    // another VM at that VMID (another name): not ours; pinned, it is refused
    expect(beforeInstall([entry(210, "db-210")], claim({ name: "i3", vmid: 210, journal })).kind).toBe("refuse");
  });

  test("a user-given name is no evidence: a pinned VMID under it is refused, with the one step that records it", () => {
    const r = beforeInstall([entry(210, "i3-210")], claim({ name: "i3", vmid: 210 }));
    expect(r.kind).toBe("refuse");
    expect(r.kind === "refuse" && r.why).toMatch(
      /^vmid 210 is already in use on .* by VM "i3-210" \(node pve1\)\. If an interrupted `pulumi up` of this stack left it .*`npx go-pve-qemu-pulumi recover --stack dev --adopt 'urn:pulumi:dev::fleet::pulumi-nodejs:dynamic\/goPveQemu:Vm::web=210'`, then run `pulumi up` again/,
    );
    // without a pinned VMID, the same name is someone else's VM as far as anything shows: installed beside it
    expect(beforeInstall([entry(104, "i3-104")], claim({ name: "i3" })).kind).toBe("install");
  });

  test("ours by its mark, but another OS: refused, never guessed", () => {
    expect(beforeInstall([{ ...marked(130), os: "debian" }], claim()).kind).toBe("refuse");
  });

  test("ownVms lists the evidence for follows and sweeps, oldest first", () => {
    const vms = [marked(132, AT + 2), entry(133, "web-133"), marked(131, AT + 1), marked(134, AT, OTHER_ID)];
    expect(ownVms(vms, claim()).map((o) => o.entry.vmid)).toEqual([131, 132]);
  });
});

describe("diff: a replace of a resource named for itself deletes first", () => {
  test("so the new VM's create cannot take the old VM for its interrupted create", () => {
    const marked = stateOf(inputs({ name: undefined }));
    expect(diff("101", marked, inputs({ name: undefined, version: "22.04" }), { urn: URN })).toMatchObject({
      replaces: ["version"],
      deleteBeforeReplace: true,
    });
    const previous = stateOf(inputs({ name: derivedName(URN, MAX) }));
    expect(
      diff("101", previous, inputs({ name: derivedName(URN, MAX), version: "22.04" }), { urn: URN })
        .deleteBeforeReplace,
    ).toBe(true);
    // a user-given name keeps create-before-delete
    const user = stateOf(inputs({ name: "web" }));
    expect(diff("101", user, inputs({ name: "web", version: "22.04" }), { urn: URN }).deleteBeforeReplace).toBe(false);
  });
});
