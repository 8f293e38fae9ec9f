// Two stacks install the same user-given name at once on one server, and the
// stream of one of them is cut: its follow never claims a VM the other stack
// made. Before the VMID is named, the name is evidence only while no other
// install of it could have made the VM (new-vm.ts); after, the VMID is.
import { DEFAULT_TIMING, create } from "../../provider/lifecycle";
import type { LifecycleContext } from "../../provider/lifecycle";
import { SPEED, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

const URN = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::app";
// Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 5_000, settleWaitMs: Number.POSITIVE_INFINITY };
const ctxOf = (h: Harness, identity: string, extra: Partial<LifecycleContext> = {}) =>
  h.ctx({ clock: simClock(SPEED), timing: TIMING, urn: URN, identity, ...extra });
const A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ imageCache: ["ubuntu/24.04"], durations: { rebootStopped: 0 } });
});
afterEach(() => h.close());

test("cut before the server named the VMID: the one new VM of the name is taken, its own and not the other stack's", async () => {
  // The first install of "same" loses its stream at once; the second runs whole. In one process the
  // VMID gate holds the second's auto install until the first's VM exists: the first new VM is the first's.
  h.sim.addFault({ kind: "drop", op: "install", step: "begin", name: "same", times: 1 });
  const [cut, whole] = await Promise.all([
    create(h.inputs({ name: "same" }), ctxOf(h, A)),
    new Promise((r) => setTimeout(r, 5)).then(() => create(h.inputs({ name: "same" }), ctxOf(h, B))),
  ]);
  expect(cut.state.vmid).not.toBe(whole.state.vmid);
  expect(cut.state).toMatchObject({ installComplete: true, vmName: `same-${cut.id}` });
  expect(h.orphans([cut.state, whole.state])).toEqual([]);
  expect(h.sim.stats().installsStarted).toBe(2);
});

test("cut after the server named the VMID: followed by that VMID, recording its own VM and not the other's", async () => {
  h.sim.addFault({ kind: "drop", op: "install", step: "creating VM", name: "same", times: 1 });
  const [cut, whole] = await Promise.all([
    create(h.inputs({ name: "same" }), ctxOf(h, A)),
    new Promise((r) => setTimeout(r, 5)).then(() => create(h.inputs({ name: "same" }), ctxOf(h, B))),
  ]);
  expect(cut.state.vmid).not.toBe(whole.state.vmid);
  expect(cut.state).toMatchObject({ installComplete: true, vmName: `same-${cut.id}` });
  expect(h.orphans([cut.state, whole.state])).toEqual([]);
});
