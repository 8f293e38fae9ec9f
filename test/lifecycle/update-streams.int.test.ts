// The fault matrix of streamed update steps against the simulator: start,
// reboot and set/node, each stream corrupted the ways the real server
// corrupts its own (broken chunk framing, a cut, frames after close, lost or
// reordered lines, a silence), at each step. In every cell the update ends
// right: applied when the VM shows the step, a partial update otherwise, and
// the state true to the VM either way. Each cell has its own simulator.
import { create, update } from "../../provider/lifecycle";
import { PartialUpdateError } from "../../provider/lifecycle/model/partial-error";
import type { VmState } from "../../provider/lifecycle";
import type { FaultRule } from "../../simulator";
import { startHarness } from "./harness";
import type { Harness } from "./harness";

type Op = "start" | "reboot" | "setNode";
type Corruption = Pick<FaultRule, "kind" | "step" | "variant" | "lines">;
interface Cell {
  op: Op;
  fault: Corruption;
  /** applied: the update succeeds; partial: PartialUpdateError */
  ends: "applied" | "partial";
}

const STEPS: Record<Op, string[]> = {
  start: ["starting VM", "waiting for SSH", "finalizing"],
  reboot: ["rebooting VM", "waiting for SSH", "finalizing"],
  setNode: ["migrating"],
};
const SHAPES: Corruption[] = [
  { kind: "garble", variant: "fragment" },
  { kind: "garble", variant: "duplicate" },
  { kind: "cut" },
  { kind: "drop" },
  { kind: "lose", lines: 2 },
  { kind: "late" },
  { kind: "reorder" },
];

/**
 * What the VM can show: a migration or a start shows itself, so any cell ends
 * applied. A reboot shows nothing on a VM that runs before and after: it is
 * applied only when the stream got as far as the server's `[+] VM rebooting`
 * (or ended intact), else a partial update that keeps the old triggers.
 */
function expected(op: Op, fault: Corruption): Cell["ends"] {
  if (op !== "reboot" || fault.step !== "rebooting VM") return "applied";
  // The step's first frame is the qm reboot's own result (`[+] VM rebooting`): a cut or a drop
  // loses it; a garble writes it whole before its stray bytes, `late` after close (still the
  // server's word), `lose` and `reorder` strike later lines.
  return fault.kind === "cut" || fault.kind === "drop" ? "partial" : "applied";
}

const CELLS: Cell[] = (Object.keys(STEPS) as Op[]).flatMap((op) =>
  STEPS[op].flatMap((step) =>
    SHAPES.map((shape) => {
      const fault = { ...shape, step };
      return { op, fault, ends: expected(op, fault) };
    }),
  ),
);

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ nodes: ["pve1", "pve2"] });
});
afterEach(() => h.close());

function newsFor(op: Op) {
  if (op === "start") return h.inputs({ name: "m" });
  if (op === "reboot") return h.inputs({ name: "m", rebootTriggers: ["b"] });
  return h.inputs({ name: "m", node: "pve2" });
}

async function vmFor(op: Op): Promise<{ id: string; state: VmState }> {
  if (op === "start") return create(h.inputs({ name: "m", running: false }), h.ctx());
  if (op === "reboot") return create(h.inputs({ name: "m", rebootTriggers: ["a"] }), h.ctx());
  return create(h.inputs({ name: "m" }), h.ctx());
}

test.each(
  CELLS.map(
    (c) => [`${c.op} ${c.fault.kind}${c.fault.variant ? `/${c.fault.variant}` : ""} at "${c.fault.step}"`, c] as const,
  ),
)("%s", async (_name, cell) => {
  const { id, state } = await vmFor(cell.op);
  h.sim.addFault({ ...cell.fault, op: cell.op, vmid: Number(id), times: 1 } as FaultRule);
  const news = newsFor(cell.op);
  const result = await update(id, state, news, h.ctx()).catch((e: unknown) => e);
  await h.sim.idle();
  const vm = h.sim.vm(Number(id))!;
  const recorded = result instanceof PartialUpdateError ? result.state : (result as VmState);
  if (cell.ends === "applied") {
    expect(result).not.toBeInstanceOf(Error);
    expect(recorded.inputs?.rebootTriggers).toEqual(news.rebootTriggers);
  } else {
    expect(result).toBeInstanceOf(PartialUpdateError);
    expect(recorded.inputs?.rebootTriggers).toEqual(["a"]);
  }
  // true to the VM in every cell
  expect({ node: recorded.node, running: recorded.running }).toEqual({
    node: vm.node,
    running: vm.status === "running",
  });
  expect(h.sim.vms()).toHaveLength(1);
});
