import { planUpdate } from "../../provider/lifecycle/plan/plan";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import type { Step } from "../../provider/lifecycle/plan/plan";
import { inputs, stateOf } from "./fixtures";

const kinds = (steps: Step[]) => steps.map((s) => s.kind);
const plan = (state: VmState, news: VmInputs) => planUpdate(state, news);

describe("planUpdate", () => {
  test("nothing to do", () => {
    expect(plan(stateOf(inputs()), inputs())).toEqual([]);
    expect(plan(stateOf(inputs({ running: false })), inputs({ running: false }))).toEqual([]);
  });

  test("a running VM is shut down for cpu, then started again", () => {
    expect(plan(stateOf(inputs()), inputs({ cpu: 4 }))).toEqual([
      { kind: "shutdown", reason: "to change cpu (the server refuses while it runs)" },
      { kind: "setCpu", cpu: 4, from: 2 },
      { kind: "start", reason: "after changing cpu" },
    ]);
  });

  test("all config changes in the precondition order: shutdown, cpu, memory, disk, node, start", () => {
    const steps = plan(stateOf(inputs({ diskGb: 32 })), inputs({ cpu: 4, memoryMb: 8192, diskGb: 40, node: "pve2" }));
    expect(kinds(steps)).toEqual(["shutdown", "setCpu", "setMemory", "growDisk", "migrate", "start"]);
    expect(steps[3]).toEqual({ kind: "growDisk", byGb: 8, fromGb: 32, toGb: 40 });
    expect(steps[4]).toEqual({ kind: "migrate", node: "pve2", from: "pve1" });
  });

  test("disk grows by the difference from the real size", () => {
    const steps = plan(stateOf(inputs(), { diskGb: 20 }), inputs({ diskGb: 64 }));
    expect(steps.find((s) => s.kind === "growDisk")).toEqual({ kind: "growDisk", byGb: 44, fromGb: 20, toGb: 64 });
  });

  test("a disk that is already larger is never shrunk", () => {
    expect(plan(stateOf(inputs({ diskGb: 40 }), { diskGb: 50 }), inputs({ diskGb: 40 }))).toEqual([]);
  });

  test("a stopped VM is changed without a shutdown, then started when it should run", () => {
    const stopped = stateOf(inputs(), { running: false });
    expect(kinds(plan(stopped, inputs({ cpu: 4 })))).toEqual(["setCpu", "start"]);
    expect(kinds(plan(stopped, inputs({ cpu: 4, running: false })))).toEqual(["setCpu"]);
  });

  test("config change with running false on a running VM: shutdown, change, stay off", () => {
    expect(kinds(plan(stateOf(inputs()), inputs({ memoryMb: 4096, running: false })))).toEqual([
      "shutdown",
      "setMemory",
    ]);
  });

  test("running true/false", () => {
    expect(plan(stateOf(inputs()), inputs({ running: false }))).toEqual([
      { kind: "shutdown", reason: "running is false" },
    ]);
    expect(plan(stateOf(inputs(), { running: false }), inputs())).toEqual([
      { kind: "start", reason: "running is true" },
    ]);
  });

  test("reboot triggers reboot a running VM", () => {
    const s = stateOf(inputs({ rebootTriggers: ["v1"] }));
    expect(plan(s, inputs({ rebootTriggers: ["v2"] }))).toEqual([{ kind: "reboot", reason: "rebootTriggers changed" }]);
    expect(kinds(plan(s, inputs({ rebootTriggers: ["v1", "v2"] })))).toEqual(["reboot"]);
    expect(kinds(plan(s, inputs({})))).toEqual(["reboot"]); // removed triggers are a change too
  });

  test("no reboot when a restart happens anyway, or the VM is (to be) stopped", () => {
    const s = stateOf(inputs({ rebootTriggers: ["v1"] }));
    expect(kinds(plan(s, inputs({ rebootTriggers: ["v2"], cpu: 4 })))).toEqual(["shutdown", "setCpu", "start"]);
    expect(kinds(plan(s, inputs({ rebootTriggers: ["v2"], running: false })))).toEqual(["shutdown"]);
    const stopped = stateOf(inputs({ rebootTriggers: ["v1"], running: false }));
    expect(plan(stopped, inputs({ rebootTriggers: ["v2"], running: false }))).toEqual([]);
    expect(kinds(plan(stopped, inputs({ rebootTriggers: ["v2"] })))).toEqual(["start"]);
  });

  test("clamped limits: asking above the known limit sets nothing; below it sets the value", () => {
    const s = stateOf(inputs({ cpu: 24 }), { cpu: 16, clamped: { cpu: { requested: 24, limit: 16 } } });
    expect(plan(s, inputs({ cpu: 24 }))).toEqual([]);
    expect(plan(s, inputs({ cpu: 30 }))).toEqual([]);
    expect(kinds(plan(s, inputs({ cpu: 8 })))).toEqual(["shutdown", "setCpu", "start"]);
  });

  test("drift is planned back", () => {
    const s = stateOf(inputs(), { cpu: 6, memoryMb: 1024, node: "pve9" });
    const steps = plan(s, inputs({ node: "pve1" }));
    expect(steps).toEqual([
      { kind: "shutdown", reason: "to change cpu, memory, node (the server refuses while it runs)" },
      { kind: "setCpu", cpu: 2, from: 6 },
      { kind: "setMemory", memoryMb: 2048, from: 1024 },
      { kind: "migrate", node: "pve1", from: "pve9" },
      { kind: "start", reason: "after changing cpu, memory, node" },
    ]);
  });

  test("an unknown power state counts as running (a shutdown of a stopped VM is harmless)", () => {
    const s = stateOf(inputs());
    delete (s as Partial<VmState>).running;
    expect(kinds(plan(s, inputs({ cpu: 3 })))).toEqual(["shutdown", "setCpu", "start"]);
  });
});
