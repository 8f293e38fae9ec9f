import { diff, UNKNOWN } from "../../provider/lifecycle";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { ENDPOINT, inputs, stateOf } from "./fixtures";

const none = { changes: false, replaces: [], deleteBeforeReplace: false, update: [], kinds: {} };

function d(state: VmState, news: VmInputs) {
  return diff(String(state.vmid), state, news);
}

describe("diff: nothing changed", () => {
  test("the same inputs are no change (second up is a no-op)", () => {
    const desired = inputs({
      cpu: 4,
      memoryMb: 4096,
      diskGb: 32,
      node: "pve1",
      rebootTriggers: ["v1"],
      sshPublicKey: "ssh-ed25519 AAAA k",
    });
    expect(d(stateOf(desired), desired)).toEqual(none);
  });

  test("omitted optional inputs equal the defaults the server applied", () => {
    expect(d(stateOf(inputs()), inputs())).toEqual(none);
    // an explicit default equals the omitted one
    expect(
      d(
        stateOf(inputs()),
        inputs({ cpu: 2, memoryMb: 2048, diskGb: 16, running: true, user: "ubuntu", rebootTriggers: [] }),
      ),
    ).toEqual(none);
  });

  test("a generated password: an omitted password is not a change", () => {
    const s = stateOf(inputs());
    expect(s.passwordGenerated).toBe(true);
    expect(d(s, inputs())).toEqual(none);
  });

  test("an explicit password later omitted is not a change either", () => {
    expect(d(stateOf(inputs({ password: "p4ssword!" })), inputs())).toEqual(none);
  });

  test("clamped by the server: asking the same (or anything above the limit) again is no change", () => {
    const s = stateOf(inputs({ cpu: 24, memoryMb: 32768, diskGb: 500 }), {
      cpu: 16,
      memoryMb: 16384,
      diskGb: 200,
      clamped: {
        cpu: { requested: 24, limit: 16 },
        memoryMb: { requested: 32768, limit: 16384 },
        diskGb: { requested: 500, limit: 200 },
      },
    });
    expect(d(s, inputs({ cpu: 24, memoryMb: 32768, diskGb: 500 }))).toEqual(none);
    expect(d(s, inputs({ cpu: 20, memoryMb: 20000, diskGb: 600 }))).toEqual(none);
    // below the limit it is a real change
    expect(d(s, inputs({ cpu: 8, memoryMb: 32768, diskGb: 500 })).update).toEqual(["cpu"]);
    expect(d(s, inputs({ cpu: 24, memoryMb: 8192, diskGb: 500 })).update).toEqual(["memoryMb"]);
  });

  test("memory kept exact through the list's GiB truncation is no change", () => {
    expect(d(stateOf(inputs({ memoryMb: 3000 })), inputs({ memoryMb: 3000 }))).toEqual(none);
  });

  test("a disk grown outside Pulumi beyond the desired size is left alone", () => {
    expect(d(stateOf(inputs({ diskGb: 32 }), { diskGb: 50 }), inputs({ diskGb: 32 }))).toEqual(none);
  });

  test("destroyOnCreateFailure only matters at create", () => {
    expect(d(stateOf(inputs()), inputs({ destroyOnCreateFailure: true }))).toEqual(none);
  });

  test("connection: an omitted or equal connection is no change", () => {
    const s = stateOf(inputs());
    expect(d(s, inputs({ connection: { endpoint: ENDPOINT + "/" } }))).toEqual(none);
    expect(d(s, inputs({ connection: {} }))).toEqual(none);
  });

  test("a node omitted means wherever the VM is", () => {
    expect(d(stateOf(inputs(), { node: "pve3" }), inputs())).toEqual(none);
  });
});

describe("diff: replace", () => {
  const base = inputs({ sshPublicKey: "ssh-ed25519 AAAA k", password: "first-pass", user: "deploy" });
  test.each([
    ["os (explicit user stays)", { os: "debian", version: "12" }, ["os", "version"]],
    ["version", { version: "22.04" }, ["version"]],
    ["name", { name: "api" }, ["name"]],
    ["name removed", { name: undefined }, ["name"]],
    ["vmid", { vmid: 150 }, ["vmid"]],
    ["user", { user: "admin" }, ["user"]],
    ["password", { password: "second-pass" }, ["password"]],
    ["sshPublicKey", { sshPublicKey: "ssh-ed25519 BBBB k" }, ["sshPublicKey"]],
    ["sshPublicKey removed", { sshPublicKey: undefined }, ["sshPublicKey"]],
  ])("%s", (_label, patch, replaces) => {
    const r = d(stateOf(base), { ...base, ...patch } as VmInputs);
    expect(r.replaces).toEqual(replaces);
    expect(r.changes).toBe(true);
    // without a name the new VM is marked for this resource, as the old one would be found: delete first
    expect(r.deleteBeforeReplace).toBe("name" in patch && patch.name === undefined);
  });

  test("os change with the default user: user follows the os (rocky)", () => {
    const r = d(stateOf(inputs()), inputs({ os: "rockylinux", version: "9" }));
    expect(r.replaces).toEqual(["os", "version", "user"]);
  });

  test("a pinned VMID kept across a replace deletes first (the new VM needs it)", () => {
    const s = stateOf(inputs({ vmid: 120 }));
    expect(d(s, inputs({ vmid: 120, version: "22.04" }))).toEqual({
      changes: true,
      replaces: ["version"],
      deleteBeforeReplace: true,
      update: [],
      kinds: { version: "update" },
    });
    // a different pinned VMID: both can exist, create first
    expect(d(s, inputs({ vmid: 121 })).deleteBeforeReplace).toBe(false);
    // auto VMID: create first
    expect(d(stateOf(inputs()), inputs({ version: "22.04" })).deleteBeforeReplace).toBe(false);
  });

  test("pinning the VMID the server had picked is no change", () => {
    expect(d(stateOf(inputs(), { vmid: 101 }), inputs({ vmid: 101 }))).toEqual(none);
  });
});

describe("diff: update in place", () => {
  test.each([
    ["cpu", { cpu: 4 }],
    ["memoryMb", { memoryMb: 4096 }],
    ["diskGb", { diskGb: 40 }],
    ["node", { node: "pve2" }],
    ["running", { running: false }],
    ["rebootTriggers", { rebootTriggers: ["v2"] }],
  ])("%s", (key, patch) => {
    const r = d(stateOf(inputs({ rebootTriggers: ["v1"] })), inputs({ rebootTriggers: ["v1"], ...patch }));
    const { downtime, ...rest } = r;
    expect(rest).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      update: [key],
      // triggers were on record; the others are the state's own values
      kinds: { [key]: "update" },
    });
    // what the server refuses while the VM runs shuts it down, and a reboot takes it down too (downtime.test.ts);
    // running: false is a shutdown asked for, not downtime that comes back
    expect(downtime?.comesBack === true).toBe(["cpu", "memoryMb", "diskGb", "node", "rebootTriggers"].includes(key));
  });

  test("several at once, in a stable order", () => {
    const r = d(
      stateOf(inputs()),
      inputs({ cpu: 4, memoryMb: 4096, diskGb: 40, node: "pve2", running: false, rebootTriggers: ["x"] }),
    );
    expect(r.update).toEqual(["cpu", "memoryMb", "diskGb", "node", "running", "rebootTriggers"]);
  });

  test("drift found by refresh is a change back to the desired value", () => {
    const s = stateOf(inputs({ cpu: 2 }), { cpu: 4, running: false, node: "pve2" });
    expect(d(s, inputs({ cpu: 2, node: "pve1" })).update).toEqual(["cpu", "node", "running"]);
  });

  test("connection: a changed endpoint or token is an update, never a replace", () => {
    const s = stateOf(inputs());
    expect(d(s, inputs({ connection: { endpoint: "http://other:8080" } }))).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
      update: ["connection"],
      kinds: { connection: "update" },
    });
    expect(d(s, inputs({ connection: { token: "new-token" } })).update).toEqual(["connection"]);
  });
});

describe("diff: unknown values (preview)", () => {
  test.each([
    ["os", "replace"],
    ["version", "replace"],
    ["name", "replace"],
    ["user", "replace"],
    ["password", "replace"],
    ["sshPublicKey", "replace"],
    ["cpu", "update"],
    ["memoryMb", "update"],
    ["diskGb", "update"],
    ["node", "update"],
    ["running", "update"],
    ["rebootTriggers", "update"],
    ["connection", "update"],
  ])("%s -> %s", (key, kind) => {
    const r = d(stateOf(inputs()), inputs({ [key]: UNKNOWN }));
    expect(r.changes).toBe(true);
    expect(kind === "replace" ? r.replaces : r.update).toContain(key);
    expect(kind === "replace" ? r.update : r.replaces).not.toContain(key);
  });

  test("an unknown vmid replaces and deletes first (it may be the same VMID)", () => {
    const r = d(stateOf(inputs()), inputs({ vmid: UNKNOWN }));
    expect(r.replaces).toEqual(["vmid"]);
    expect(r.deleteBeforeReplace).toBe(true);
  });

  test("an unknown item in rebootTriggers or connection is a change", () => {
    expect(d(stateOf(inputs()), inputs({ rebootTriggers: ["a", UNKNOWN] })).update).toEqual(["rebootTriggers"]);
    expect(d(stateOf(inputs()), inputs({ connection: { endpoint: UNKNOWN } })).update).toEqual(["connection"]);
  });
});

describe("diff: a state read without prior state, and old states", () => {
  // What read gives for a VM found by its VMID alone: no version, user, password, key or triggers on record.
  const found = {
    vmid: 130,
    vmName: "legacy-130",
    os: "ubuntu",
    node: "pve1",
    cpu: 4,
    memoryMb: 4096,
    diskGb: 32,
    running: true,
    connection: { endpoint: ENDPOINT },
    inputs: {
      os: "ubuntu",
      name: "legacy",
      vmid: 130,
      node: "pve1",
      cpu: 4,
      memoryMb: 4096,
      diskGb: 32,
      running: true,
    },
  } as VmState;
  const program = (patch: Partial<Record<keyof VmInputs, unknown>> = {}) =>
    inputs({ name: "legacy", vmid: 130, cpu: 4, memoryMb: 4096, diskGb: 32, ...patch });

  test("no version or password on record: whatever the program says of them is no change", () => {
    expect(d(found, program())).toEqual(none);
    expect(d(found, program({ version: "22.04", password: "whatever1" }))).toEqual(none);
  });

  test("the user is compared with the OS's default user", () => {
    expect(d(found, program({ user: "ubuntu" }))).toEqual(none);
    expect(d(found, program({ user: "deploy" })).replaces).toEqual(["user"]);
  });

  test("a key and reboot triggers are compared with none", () => {
    expect(d(found, program({ sshPublicKey: "ssh-ed25519 AAAA k" })).replaces).toEqual(["sshPublicKey"]);
    expect(d(found, program({ rebootTriggers: [] }))).toEqual(none);
    expect(d(found, program({ rebootTriggers: ["x"] })).update).toEqual(["rebootTriggers"]);
  });

  test("an old state that still carries imported: true is compared the same way", () => {
    const old = { ...found, imported: true } as VmState;
    expect(d(old, program({ version: "22.04" }))).toEqual(none);
    expect(d(old, program({ user: "deploy", rebootTriggers: ["x"] }))).toMatchObject({
      replaces: ["user"],
      update: ["rebootTriggers"],
    });
  });

  test("other sizes are an update (a larger disk is left alone: it cannot shrink)", () => {
    expect(d(found, inputs({ name: "legacy", vmid: 130 })).update).toEqual(["cpu", "memoryMb"]);
  });

  test("a partial state without inputs still diffs (name from the real name)", () => {
    const old = { vmid: 140, vmName: "web-140", cpu: 2, running: true } as VmState;
    expect(d(old, inputs({ vmid: 140 }))).toEqual(none);
    expect(d(old, inputs({ name: "api", vmid: 140 })).replaces).toEqual(["name"]);
  });

  test("a state with nothing but the VMID accepts any inputs but asks for what it cannot confirm", () => {
    const r = diff("150", {} as VmState, inputs({ cpu: 4 }));
    expect(r.replaces).toEqual([]);
    expect(r.update).toEqual(["cpu"]);
  });
});

describe("diff: a VM whose install did not finish", () => {
  const failed = (desired: VmInputs) =>
    stateOf(desired, { installComplete: false, installProblem: "SSH timeout", running: false });

  test("a failed install is replaced on the next up, like a tainted resource", () => {
    const r = d(failed(inputs()), inputs());
    expect(r.changes).toBe(true);
    expect(r.replaces).toEqual(["installComplete"]);
    // no pinned VMID: the new VM is made first
    expect(r.deleteBeforeReplace).toBe(false);
  });

  test("with a pinned VMID the failed VM is deleted first (the VMID is taken)", () => {
    const r = d(failed(inputs({ vmid: 120 })), inputs({ vmid: 120 }));
    expect(r).toMatchObject({ replaces: ["installComplete"], deleteBeforeReplace: true });
  });

  test("keepIncompleteInstall: true keeps it, and only real changes count", () => {
    const kept = inputs({ keepIncompleteInstall: true });
    expect(d(failed(inputs()), { ...kept, running: false })).toEqual(none);
    expect(d(failed(inputs()), { ...kept, running: false, cpu: 4 })).toMatchObject({ replaces: [], update: ["cpu"] });
  });

  test("an install whose outcome is not known yet is an update that settles it, kept or not", () => {
    const unconfirmed = { ...failed(inputs()), installState: "unconfirmed" } as VmState;
    const expected = { changes: true, replaces: [], update: ["installState"] };
    expect(d(unconfirmed, { ...inputs(), running: false })).toMatchObject(expected);
    expect(d(unconfirmed, { ...inputs({ keepIncompleteInstall: true }), running: false })).toMatchObject(expected);
  });

  test("a complete install, or a state from before install states were kept, is no change", () => {
    expect(d(stateOf(inputs()), inputs())).toEqual(none);
    const { installComplete: _gone, ...older } = stateOf(inputs());
    expect(d(older as VmState, inputs())).toEqual(none);
  });

  test("adopt with a failed install refuses the replace rather than destroy the adopted VM", () => {
    expect(() => d(failed(inputs({ vmid: 120 })), inputs({ vmid: 120, adopt: true }))).toThrow(/adopt/);
  });
});
