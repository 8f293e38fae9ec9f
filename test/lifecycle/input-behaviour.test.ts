// The declaration of how each input's change is made (model/input-behaviour.ts)
// against what the diff does: every declared input, one change each, lands
// where its declaration says. (The descriptions and the README's table
// against it: test/package/input-table.test.ts.)
import { INPUT_BEHAVIOUR, VmInputsSchema } from "../../provider/lifecycle/model";
import type { InputBehaviour, InputKey } from "../../provider/lifecycle/model/input-behaviour";
import { diff, UNKNOWN } from "../../provider/lifecycle";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { inputs, stateOf } from "./fixtures";

/** One change of each input: the inputs the VM was made with, and the ones after. Typed so a new input needs one. */
const CHANGE: Record<InputKey, { was?: Partial<Record<keyof VmInputs, unknown>>; now: Partial<VmInputs> }> = {
  os: { now: { os: "debian", version: "12", user: "ubuntu" } },
  version: { now: { version: "22.04" } },
  name: { now: { name: "api" } },
  vmid: { now: { vmid: 150 } },
  user: { now: { user: "admin" } },
  password: { was: { password: "first-pass" }, now: { password: "second-pass" } },
  sshPublicKey: { now: { sshPublicKey: "ssh-ed25519 BBBB k" } },
  cpu: { now: { cpu: 4 } },
  memoryMb: { now: { memoryMb: 4096 } },
  diskGb: { now: { diskGb: 40 } },
  node: { now: { node: "pve2" } },
  rebootTriggers: { was: { rebootTriggers: ["v1"] }, now: { rebootTriggers: ["v2"] } },
  running: { now: { running: false } },
  connection: { now: { connection: { endpoint: "http://other:8080" } } },
  storePassword: { was: { password: "first-pass" }, now: { password: "first-pass", storePassword: false } },
  destroyOnCreateFailure: { now: { destroyOnCreateFailure: true } },
  keepIncompleteInstall: { now: { keepIncompleteInstall: true } },
  downtimeGroup: { now: { downtimeGroup: "web" } },
  allowDowntime: { now: { allowDowntime: false } },
  adopt: { now: { adopt: true } },
};

/** What the diff must do with a change of an input of each behaviour. */
const EXPECT: Record<InputBehaviour, (r: ReturnType<typeof diff>, key: string) => void> = {
  replace: (r, key) => {
    expect(r.replaces).toContain(key);
    expect(r.update).toEqual([]);
  },
  downtime: (r, key) => {
    expect(r).toMatchObject({ replaces: [], update: [key] });
    expect(r.downtime?.comesBack).toBe(true);
  },
  "in-place": (r, key) => {
    expect(r).toMatchObject({ replaces: [], update: [key] });
    expect(r.downtime?.comesBack ?? false).toBe(false);
  },
  "state-only": (r, key) => {
    expect(r).toMatchObject({ replaces: [], update: [key] });
    expect(r.downtime).toBeUndefined();
  },
  never: (r) => expect(r).toMatchObject({ changes: false, replaces: [], update: [] }),
};

const declared = Object.entries(INPUT_BEHAVIOUR) as Array<[InputKey, InputBehaviour]>;
const base = { sshPublicKey: "ssh-ed25519 AAAA k" };

test("every input of the schema is declared, and nothing else", () => {
  expect(Object.keys(INPUT_BEHAVIOUR).sort()).toEqual(Object.keys(VmInputsSchema.shape).sort());
});

describe.each(declared)("a change of %s (%s)", (key, behaviour) => {
  test("lands where the declaration says", () => {
    const { was = {}, now } = CHANGE[key];
    const r = diff("101", stateOf(inputs({ ...base, ...was })), { ...inputs({ ...base, ...was }), ...now });
    EXPECT[behaviour](r, key);
    expect(r.changes).toBe(behaviour !== "never");
    // each changed key has its kind, and only those
    expect(Object.keys(r.kinds).sort()).toEqual([...r.replaces, ...r.update].sort());
  });

  if (behaviour !== "never")
    test("a value not known yet (preview) is a change of it, in the same bucket", () => {
      const r = diff("101", stateOf(inputs(base)), inputs({ ...base, [key]: UNKNOWN }));
      expect(r.changes).toBe(true);
      expect(behaviour === "replace" ? r.replaces : r.update).toContain(key);
      expect(behaviour === "replace" ? r.update : r.replaces).not.toContain(key);
    });
});

describe("the kind of each changed key, against what is on record", () => {
  const d = (was: Partial<Record<keyof VmInputs, unknown>>, now: Partial<Record<keyof VmInputs, unknown>>) =>
    diff("101", stateOf(inputs(was)), inputs(now)).kinds;

  test("set where nothing was on record: an add", () => {
    expect(d({}, { rebootTriggers: ["x"], sshPublicKey: "ssh-ed25519 AAAA k" })).toEqual({
      sshPublicKey: "add",
      rebootTriggers: "add",
    });
    expect(d({ name: undefined }, { name: "api" })).toEqual({ name: "add" });
    // a value not known yet where nothing was is an add too
    expect(d({}, { rebootTriggers: [UNKNOWN] })).toEqual({ rebootTriggers: "add" });
  });

  test("omitted where a value was on record, and that is a change: a delete", () => {
    expect(d({ rebootTriggers: ["x"] }, { rebootTriggers: [] })).toEqual({ rebootTriggers: "delete" });
    expect(d({ sshPublicKey: "ssh-ed25519 AAAA k" }, {})).toEqual({ sshPublicKey: "delete" });
    expect(d({}, { name: undefined })).toEqual({ name: "delete" });
    // the VM has 4 vCPUs; omitted means the default, 2
    expect(d({ cpu: 4 }, {})).toEqual({ cpu: "delete" });
  });

  test("a value the state has, given anew: an update, even where the input was omitted before", () => {
    expect(d({}, { cpu: 4, version: "22.04" })).toEqual({ version: "update", cpu: "update" });
    expect(d({ cpu: 4 }, { cpu: UNKNOWN })).toEqual({ cpu: "update" });
  });

  test("a failed install's replace and an unconfirmed one's settling are updates of the state's own keys", () => {
    const failed = stateOf(inputs(), { installComplete: false, running: false });
    expect(diff("101", failed, { ...inputs(), running: false }).kinds).toEqual({ installComplete: "update" });
    const unconfirmed = { ...failed, installState: "unconfirmed" } as VmState;
    expect(diff("101", unconfirmed, { ...inputs(), running: false }).kinds).toEqual({ installState: "update" });
  });
});
