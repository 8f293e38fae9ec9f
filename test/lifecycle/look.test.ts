// One look at the VM as both decision tables take it (look.ts).
import { exists, lookOf, runs } from "../../provider/lifecycle/observe/look";
import type { Look } from "../../provider/lifecycle/observe/look";
import type { Observation } from "../../provider/lifecycle/observe/observe";

const entry = { vmid: 101, name: "web-101", os: "ubuntu", running: true, node: "pve2", cpu: 2, disk: 16, memory: 2 };
const o = (patch: Partial<Observation>): Observation => ({
  vmid: 101,
  listed: true,
  entry,
  disabled: false,
  nameMatches: true,
  running: true,
  ...patch,
});

test("lookOf: an observation as the tables see it", () => {
  expect(lookOf({ vmid: 101, listed: false, disabled: false, nameMatches: false })).toEqual({ kind: "absent" });
  expect(lookOf(o({ nameMatches: false }))).toEqual({ kind: "other", name: "web-101" });
  expect(lookOf(o({ disabled: true, running: undefined }))).toEqual({ kind: "disabled" });
  expect(lookOf(o({}))).toEqual({ kind: "present", running: true, node: "pve2", tagged: true });
  expect(lookOf(o({ running: false, entry: { ...entry, os: "" } }))).toEqual({
    kind: "present",
    running: false,
    node: "pve2",
    tagged: false,
  });
  // status did not answer and the list had no flag: not known, not "stopped"
  expect(lookOf(o({ running: undefined }))).toMatchObject({ kind: "present", running: undefined });
});

test("exists and runs: a disabled VM exists but shows no power state", () => {
  const looks: Array<[Look, boolean, boolean]> = [
    [{ kind: "present", running: true, node: "pve1", tagged: true }, true, true],
    [{ kind: "present", running: false, node: "pve1", tagged: true }, true, false],
    [{ kind: "present", node: "pve1", tagged: true }, true, false],
    [{ kind: "disabled" }, true, false],
    [{ kind: "absent" }, false, false],
    [{ kind: "other", name: "x-101" }, false, false],
    [{ kind: "unreadable", error: "x" }, false, false],
  ];
  for (const [look, there, running] of looks) {
    expect([look.kind, exists(look), runs(look)]).toEqual([look.kind, there, running]);
  }
});
