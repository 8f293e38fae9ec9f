// The fault matrix through the lifecycle, each case on its own simulator (run
// in parallel) with the lifecycle's clock in the simulator's time (sim-clock):
// - the server ends the install at every step (error event, silent close,
//   bare line), auto and pinned VMID, with and without destroyOnCreateFailure;
// - the stream is lost at every step, in every shape the real server
//   produces (cut connection, stall, broken chunk framing, a cut frame), and
//   the server then completes, fails and cleans up, or fails and leaves the VM;
// - the stream is damaged but ends (a frame after close, a lost line, lines
//   out of order).
// Every case must end right: success only when the install completed (or
// passed the point where the server can undo it), otherwise a clear failure or
// a partial create; 0 VMs in state that the server no longer has (ghosts), 0
// VMs on the server that state does not know (orphans), and, after a lost
// stream, the end comes within the bound the provider announced, in
// simulated time.
import { DEFAULT_TIMING, create, PartialError } from "../../provider/lifecycle";
import { CODES } from "../../provider/lifecycle/model/lifecycle-error";
import type { Timing, VmInputs, VmState } from "../../provider/lifecycle";
import { STEPS } from "../../simulator";
import type { FaultRule, SimulatorOptions } from "../../simulator";
import { SPEED, startHarness } from "./harness";
import { simClock } from "./sim-clock";

type Outcome = "ok" | "partial" | "unconfirmed" | "error";
interface Case {
  label: string;
  faults: FaultRule[];
  pinned?: boolean;
  inputs?: Partial<Record<keyof VmInputs, unknown>>;
  sim?: SimulatorOptions;
  timing?: Partial<Timing>;
}
interface Result {
  label: string;
  outcome: Outcome | string;
  orphans: number[];
  ghosts: number[];
  /** simulated ms the provider still chose to wait after the bound it announced when the stream was lost */
  late?: number;
  problem?: string;
}

const INSTALL_STEPS = STEPS.install;
const MATRIX_URN = "urn:pulumi:matrix::faults::pulumi-nodejs:dynamic/goPveQemu:Vm::m";
const MATRIX_ID = "a11ce0000000000000000000000b0b00";
/** 5 s between polls in simulated time (2.5 ms real). */
// Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 5_000, settleWaitMs: Number.POSITIVE_INFINITY };

/** Simulator and inputs a step needs to be reached at all. */
function setupFor(step: string): Pick<Case, "inputs" | "sim"> {
  if (step === "downloading OS image") return { sim: { imageCache: [] } };
  if (step === "creating SSH key") return { sim: { sshKey: false } };
  if (step === "migrating VM") return { inputs: { node: "pve2" } };
  return {};
}

/** What may follow the announced bound, in simulated time (see runCase). */
const SLACK_MS = 5 * 60_000;
const BOUND = /for up to ([\d.]+) (s|min) \(the longest/;

async function runCase(c: Case): Promise<Result> {
  const h = await startHarness({ imageCache: ["ubuntu/24.04"], nodes: ["pve1", "pve2"], ...c.sim });
  try {
    for (const rule of c.faults) h.sim.addFault(rule);
    const sim = simClock(c.sim?.speed ?? SPEED);
    let deadline: number | undefined;
    // Simulated time the lifecycle chose to wait after the announced bound. The requests'
    // own latency (wall time, magnified SPEED times by this clock, and at the mercy of a
    // loaded machine) is not counted: only the waits the provider decided on.
    let waitedAfter = 0;
    const clock = {
      ...sim,
      sleep: (ms: number, signal?: AbortSignal) => {
        if (deadline !== undefined && sim.now() > deadline) waitedAfter += ms;
        return sim.sleep(ms, signal);
      },
    };
    // As the glue runs it: the resource's URN and the stack's identity, so that an install without
    // a pinned VMID carries this stack's mark and can be recognised after a lost stream.
    const ctx = h.ctx({ clock, timing: { ...TIMING, ...c.timing }, urn: MATRIX_URN, identity: MATRIX_ID });
    const warn = ctx.reporter.warn;
    ctx.reporter.warn = (msg: string) => {
      warn(msg);
      const m = BOUND.exec(msg);
      if (m) deadline = clock.now() + Number(m[1]) * (m[2] === "min" ? 60_000 : 1000);
    };
    const inputs = h.inputs({ ...(c.pinned ? { name: "m", vmid: 150 } : {}), ...c.inputs });
    const states: VmState[] = [];
    let outcome: Outcome | string;
    let problem: string | undefined;
    try {
      const { state } = await create(inputs, ctx);
      states.push(state);
      // Recorded with its outcome not known yet (the create succeeds): never destroyed, settled later.
      outcome = state.installState === "unconfirmed" ? "unconfirmed" : "ok";
      if (outcome === "ok" && (state.running !== true || state.installComplete !== true))
        problem = `recorded ${JSON.stringify(state)}`;
    } catch (err) {
      if (err instanceof PartialError) {
        states.push(err.state);
        outcome = err.state.installState === "unconfirmed" ? "unconfirmed" : "partial";
        if (err.id !== String(err.state.vmid)) problem = `id ${err.id} vs state ${err.state.vmid}`;
      } else if ((err as { code?: string }).code?.startsWith("GPQ_")) outcome = "error";
      else outcome = `unexpected ${(err as Error).name}: ${(err as Error).message}`;
    }
    await h.sim.idle();
    const onServer = new Set(h.sim.vms().map((vm) => vm.vmid));
    return {
      label: c.label,
      outcome,
      orphans: h.orphans(states),
      ghosts: states.filter((s) => !onServer.has(s.vmid)).map((s) => s.vmid),
      // After the announced bound: the last round's questions and the confirmation.
      ...(waitedAfter > SLACK_MS ? { late: waitedAfter } : {}),
      ...(problem ? { problem } : {}),
    };
  } finally {
    await h.close();
  }
}

function expectAll(results: Result[], expected: Record<string, Outcome>): void {
  const got = results.map((r) => ({ ...r }));
  const want = results.map((r) => ({ label: r.label, outcome: expected[r.label], orphans: [], ghosts: [] }));
  expect(got).toEqual(want);
}

/** What a failing action at each step ends in (the server's own behaviour decides). */
const FAIL_OUTCOME: Record<string, Outcome> = {
  begin: "ok", // no action to fail here
  "checking VMID": "error", // no free VMID (auto only)
  "assigning IP": "error",
  "validating CPU and RAM": "ok", // no action to fail
  "validating disk size": "ok", // no action to fail
  "setting default config values": "error",
  "checking storage pool": "error",
  "getting OS image": "error",
  "validating OS image URL": "error",
  "downloading OS image": "error",
  "using OS image": "ok", // no action to fail
  "checking SSH key": "error",
  "creating SSH key": "error",
  "creating VM": "error",
  "importing disk image": "error", // the server destroys the half-made VM
  "initializing configuration": "error", // idem
  "migrating VM": "partial", // close without completion, VM left behind
  "starting VM": "partial", // idem, VM stopped
  "waiting for ready": "partial", // SSH timeout error event, VM left running
  "SSH initialization": "error", // the server destroys the VM
  "rebooting VM": "partial", // close without completion
  "waiting after reboot": "partial", // SSH timeout
  finalizing: "ok", // no action to fail
  close: "ok",
};

const at = (s: string): number => INSTALL_STEPS.indexOf(s);
const fail = (step: string): FaultRule => ({ kind: "fail", op: "install", step });

/**
 * What the server does after the stream was lost at `step`, and the outcome
 * that is right for it; undefined when the server has passed every step that
 * could still fail that way.
 */
function afterLoss(
  step: string,
  after: "completes" | "cleans up" | "leaves the VM",
): { faults: FaultRule[]; expected: Outcome } | undefined {
  if (after === "completes") return { faults: [], expected: "ok" };
  if (after === "cleans up") {
    return at(step) <= at("SSH initialization")
      ? { faults: [fail("SSH initialization")], expected: "error" }
      : undefined;
  }
  if (at(step) <= at("starting VM")) return { faults: [fail("starting VM")], expected: "partial" };
  // The reboot fails after the point of no return: the VM runs, initialised; from outside it
  // is the same as success, and the server can no longer remove it: recorded as installed.
  if (at(step) <= at("rebooting VM")) return { faults: [fail("rebooting VM")], expected: "ok" };
  return undefined;
}

describe("fault matrix: the server ends the install at each step", () => {
  test("the step list covers the whole install", () => {
    expect(Object.keys(FAIL_OUTCOME)).toEqual([...INSTALL_STEPS]);
  });

  test.each([
    ["auto VMID", false, false],
    ["pinned VMID", true, false],
    ["destroyOnCreateFailure", false, true],
  ] as const)("fail at every step, %s", async (_label, pinned, destroy) => {
    const results = await Promise.all(
      INSTALL_STEPS.map((step) => {
        const s = setupFor(step);
        const inputs = destroy ? { ...s.inputs, destroyOnCreateFailure: true } : s.inputs;
        return runCase({ label: step, pinned, faults: [fail(step)], ...s, inputs });
      }),
    );
    const expected: Record<string, Outcome> = { ...FAIL_OUTCOME };
    if (pinned) expected["checking VMID"] = "ok"; // a pinned VMID is not searched
    if (destroy) for (const k of Object.keys(expected)) if (expected[k] === "partial") expected[k] = "error";
    expectAll(results, expected);
  });
});

describe("fault matrix: the stream is lost at each step, then the server completes, cleans up, or leaves the VM", () => {
  const SHAPES: Array<[string, Omit<FaultRule, "step">]> = [
    ["drop", { kind: "drop", op: "install" }],
    ["stall", { kind: "stall", op: "install" }],
    ["broken chunk framing", { kind: "garble", op: "install" }],
    ["cut frame", { kind: "cut", op: "install" }],
  ];
  const AFTER = ["completes", "cleans up", "leaves the VM"] as const;

  test.each(SHAPES.flatMap(([name, rule]) => AFTER.map((after) => [name, after, rule] as const)))(
    "%s, then the server %s",
    async (_name, after, rule) => {
      const cells = INSTALL_STEPS.flatMap((step) => {
        const then = afterLoss(step, after);
        if (then && rule.kind === "garble" && then.faults.some((f) => f.step === step)) {
          // A silent failure's next frame is `event: close`, which a garble leaves readable (it
          // adds bytes after the frame): the close arrives, and the server's own end decides.
          return [{ step, then: { ...then, expected: FAIL_OUTCOME[step]! } }];
        }
        return then ? [{ step, then }] : [];
      });
      const results = await Promise.all(
        cells.map(({ step, then }, i) =>
          runCase({
            label: step,
            pinned: i % 2 === 1, // auto and pinned VMIDs alternate along the steps
            faults: [{ ...rule, step } as FaultRule, ...then.faults],
            ...setupFor(step),
          }),
        ),
      );
      expectAll(results, Object.fromEntries(cells.map((c) => [c.step, c.then.expected])));
    },
  );
});

describe("fault matrix: the stream is damaged but ends", () => {
  test.each([
    ["a frame after close", { kind: "late", op: "install" }],
    ["a lost line", { kind: "lose", op: "install" }],
    ["lines out of order", { kind: "reorder", op: "install" }],
    ["a broken CRLF, then the stream goes on", { kind: "garble", op: "install", variant: "crlf" }],
  ] as const)("%s at every step: the install completes and is recorded", async (_name, rule) => {
    const results = await Promise.all(
      INSTALL_STEPS.map((step) =>
        runCase({ label: step, faults: [{ ...rule, step } as FaultRule], ...setupFor(step) }),
      ),
    );
    expectAll(results, Object.fromEntries(INSTALL_STEPS.map((s) => [s, "ok"])) as Record<string, Outcome>);
  });
});

describe("fault matrix: answers before any stream", () => {
  test("bare message, a definite refusal, a proxy's page: no follow where it is known, a follow where it is not", async () => {
    const results = await Promise.all([
      runCase({ label: "bare", faults: [], sim: { allowIps: "10.1.2.3" } }),
      runCase({ label: "http 400", faults: [], inputs: { os: "windows" } }),
      runCase({
        label: "pinned, JSON refusal 500",
        pinned: true,
        faults: [
          {
            kind: "http",
            op: "install",
            status: 500,
            body: '{"success":false,"message":"no"}',
            contentType: "application/json; charset=utf-8",
          },
        ],
      }),
      runCase({
        label: "pinned, proxy 502 page",
        pinned: true,
        faults: [
          { kind: "http", op: "install", status: 502, body: "<html>bad gateway</html>", contentType: "text/html" },
        ],
      }),
    ]);
    expectAll(results, {
      bare: "error",
      "http 400": "error",
      "pinned, JSON refusal 500": "error",
      "pinned, proxy 502 page": "error",
    });
  });
});

describe("fault matrix: destroyOnCreateFailure after a lost stream", () => {
  test("the VM the install left stopped is destroyed, nothing left; an unconfirmed one is never destroyed", async () => {
    const results = await Promise.all([
      runCase({
        label: "left stopped",
        faults: [{ kind: "drop", op: "install", step: "assigning IP" }, fail("starting VM")],
        inputs: { destroyOnCreateFailure: true },
      }),
      runCase({
        label: "completes",
        faults: [{ kind: "drop", op: "install", step: "assigning IP" }],
        inputs: { destroyOnCreateFailure: true },
      }),
      // The follow is cut short (5 simulated minutes) while the VM runs its init script, and its
      // reboot, after the cut, is never seen.
      runCase({
        label: "unconfirmed",
        pinned: true,
        faults: [{ kind: "drop", op: "install", step: "SSH initialization" }],
        inputs: { destroyOnCreateFailure: true },
        timing: { followTimeoutMs: 5 * 60_000 },
        sim: { durations: { rebootStopped: 0 } },
      }),
      // The same, but the init script is short and the reboot's stopped moment is seen within the
      // 5 minutes: it settles the install, which is recorded. At a slower speed, so that the 30 s
      // stopped moment lasts 0.3 s of wall time: a loaded machine does not make the looks miss it.
      runCase({
        label: "reboot seen",
        pinned: true,
        faults: [{ kind: "drop", op: "install", step: "SSH initialization" }],
        inputs: { destroyOnCreateFailure: true },
        timing: { followTimeoutMs: 5 * 60_000 },
        sim: { speed: 100, durations: { sshInit: 20_000, rebootStopped: 30_000 } },
      }),
    ]);
    expectAll(results, {
      "left stopped": "error",
      completes: "ok",
      unconfirmed: "unconfirmed",
      "reboot seen": "ok",
    });
  });
});

test("the error codes the matrix relies on are stable", () => {
  expect(CODES).toMatchObject({ partial: "GPQ_PARTIAL", installFailed: "GPQ_INSTALL_FAILED" });
});
