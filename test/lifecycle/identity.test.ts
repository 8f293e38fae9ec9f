// The identity of a resource declared without a name: the derived name
// (identity.ts), where check gives it (new resources only), how the list
// before an install is read, and why a replace then deletes first.
import { check, diff } from "../../provider/lifecycle";
import { derivedName } from "../../provider/lifecycle/derived-name";
import type { VmEntry } from "../../provider/client/schemas";
import { beforeInstall, isDerivedName } from "../../provider/lifecycle/identity";
import { LIMITS } from "../../provider/lifecycle/inputs";
import { ENDPOINT, inputs, stateOf } from "./fixtures";

const URN = "urn:pulumi:prod::fleet::go-pve-qemu:index:Vm::web";
const MAX = LIMITS.nameMax;
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

describe("derivedName", () => {
  test("the resource's name, sanitised, and 8 hex of the URN's hash: stable, and per stack", () => {
    const a = derivedName(URN, MAX);
    expect(a).toMatch(/^web-[0-9a-f]{8}$/);
    expect(derivedName(URN, MAX)).toBe(a);
    expect(derivedName("urn:pulumi:staging::fleet::go-pve-qemu:index:Vm::web", MAX)).not.toBe(a);
    expect(derivedName("urn:pulumi:prod::fleet::go-pve-qemu:index:Vm::Web_Server.1", MAX)).toMatch(
      /^web-server-1-[0-9a-f]{8}$/,
    );
    expect(derivedName("urn:pulumi:prod::fleet::go-pve-qemu:index:Vm::___", MAX)).toMatch(/^vm-[0-9a-f]{8}$/);
  });

  test("always within the server's name limit and the input's own rule", () => {
    const long = derivedName(`urn:pulumi:s::p::t::${"x".repeat(200)}`, MAX);
    expect(long.length).toBeLessThanOrEqual(MAX);
    expect(check({}, { os: "ubuntu", version: "24.04", name: long }).failures).toEqual([]);
  });
});

describe("check gives the derived name", () => {
  test("to a new resource without a name", () => {
    expect(check({}, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBe(derivedName(URN, MAX));
    expect(check(undefined, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBe(derivedName(URN, MAX));
  });

  test("again to a resource that has it", () => {
    const olds = { os: "ubuntu", version: "24.04", name: derivedName(URN, MAX) };
    expect(check(olds, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBe(olds.name);
  });

  test("kept through a stack rename (the URN changed, the old derived name stays: no replace)", () => {
    const renamed = "urn:pulumi:production::fleet::go-pve-qemu:index:Vm::web";
    const olds = { os: "ubuntu", version: "24.04", name: derivedName(URN, MAX) };
    expect(check(olds, { os: "ubuntu", version: "24.04" }, { ...opts, urn: renamed }).inputs.name).toBe(olds.name);
    // a given name that was removed is not kept: the replace that follows gets the derived one
    expect(check({ ...olds, name: "web" }, { os: "ubuntu", version: "24.04" }, opts).inputs.name).toBe(olds.name);
  });

  test("never to a resource recorded without a name (an earlier release): no replace on upgrade", () => {
    const r = check({ os: "ubuntu", version: "24.04" }, { os: "ubuntu", version: "24.04" }, opts);
    expect(r.inputs.name).toBeUndefined();
  });

  test("never when adopting: the adopted VM keeps its own name", () => {
    expect(check({}, { os: "ubuntu", version: "24.04", vmid: 150, adopt: true }, opts).inputs.name).toBeUndefined();
  });

  test("never over the user's name, and not without a URN", () => {
    expect(check({}, { os: "ubuntu", version: "24.04", name: "web" }, opts).inputs.name).toBe("web");
    expect(check({}, { os: "ubuntu", version: "24.04" }).inputs.name).toBeUndefined();
  });

  test("isDerivedName needs the URN it came from", () => {
    const name = derivedName(URN, MAX);
    expect(isDerivedName(name, URN, MAX)).toBe(true);
    expect(isDerivedName(name, "urn:pulumi:staging::fleet::go-pve-qemu:index:Vm::web", MAX)).toBe(false);
    expect(isDerivedName(name, undefined, MAX)).toBe(false);
    expect(isDerivedName("web", URN, MAX)).toBe(false);
  });
});

describe("the list before an install", () => {
  const name = derivedName(URN, MAX);
  const want = { name, derived: true, os: "ubuntu", endpoint: ENDPOINT };

  test("a VM with this resource's derived name is its interrupted create (auto or at the pinned VMID)", () => {
    expect(beforeInstall([entry(130, `${name}-130`)], want)).toMatchObject({
      kind: "interrupted",
      entry: { vmid: 130 },
    });
    expect(beforeInstall([entry(130, `${name}-130`)], { ...want, vmid: 130 })).toMatchObject({ kind: "interrupted" });
    expect(beforeInstall([entry(130, `${name}-130`, "")], want)).toMatchObject({ kind: "interrupted" }); // not tagged yet
  });

  test("another stack's, a hand-made one, or ours at another VMID than the pinned one: not adopted", () => {
    const theirs = derivedName("urn:pulumi:staging::fleet::go-pve-qemu:index:Vm::web", MAX);
    expect(beforeInstall([entry(130, `${theirs}-130`)], want).kind).toBe("install");
    expect(beforeInstall([entry(130, "web-130")], want).kind).toBe("install");
    expect(beforeInstall([entry(130, `${name}-130`)], { ...want, vmid: 140 }).kind).toBe("install");
  });

  test("a pinned VMID held by another VM is refused, with the advice to adopt it", () => {
    const r = beforeInstall([entry(140, "web-140")], { ...want, vmid: 140 });
    expect(r).toMatchObject({ kind: "refuse" });
    expect(r.kind === "refuse" && r.why).toMatch(/already in use on .* by VM "web-140".*`adopt: true`/);
  });

  test("a user-given name is never taken over, even when it matches", () => {
    const r = beforeInstall([entry(140, "web-140")], {
      name: "web",
      derived: false,
      os: "ubuntu",
      endpoint: ENDPOINT,
      vmid: 140,
    });
    expect(r.kind).toBe("refuse");
  });

  test("two VMs with the name, or one with another OS: refused, never guessed", () => {
    expect(beforeInstall([entry(130, `${name}-130`), entry(131, `${name}-131`)], want).kind).toBe("refuse");
    expect(beforeInstall([entry(130, `${name}-130`, "debian")], want).kind).toBe("refuse");
  });
});

describe("diff: a replace of a resource with a derived name deletes first", () => {
  test("so the new VM's create cannot take the old VM for its interrupted create", () => {
    const name = derivedName(URN, MAX);
    const old = stateOf(inputs({ name }));
    expect(diff("101", old, inputs({ name, version: "22.04" }), { urn: URN })).toMatchObject({
      replaces: ["version"],
      deleteBeforeReplace: true,
    });
    // a user-given name (or no URN) keeps create-before-delete
    const user = stateOf(inputs({ name: "web" }));
    expect(diff("101", user, inputs({ name: "web", version: "22.04" }), { urn: URN }).deleteBeforeReplace).toBe(false);
  });
});
