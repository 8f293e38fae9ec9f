// The install's decision tables, row by row: what a failed install call ends
// in, how a lost stream is followed, and how read/update settle an
// unconfirmed install later. Pure functions: no server, no clock.
import { DEFAULT_OPEN_BOUNDS, phaseBounds, phaseOfEvent } from "../../provider/client/stream/wire";
import { advance, timelineOf } from "../../provider/lifecycle/install/timeline";
import { decideFailure } from "../../provider/lifecycle/install/rules/failure-rules";
import { decideLost, phaseShown, remember, settled } from "../../provider/lifecycle/install/rules/lost-rules";
import type { Failure, FailureFacts } from "../../provider/lifecycle/install/rules/failure-rules";
import type { FollowMemory } from "../../provider/lifecycle/install/rules/lost-rules";
import { lookOf } from "../../provider/lifecycle/observe/look";
import type { Look } from "../../provider/lifecycle/observe/look";
import type { Observation } from "../../provider/lifecycle/observe/observe";

const OPEN = DEFAULT_OPEN_BOUNDS;
const B = phaseBounds(OPEN);
const facts = (patch: Partial<FailureFacts> = {}): FailureFacts => ({
  vmCreated: false,
  pinned: false,
  followable: true,
  existedBefore: false,
  attempt: 1,
  ...patch,
});
const ended = (patch: Partial<Extract<Failure, { kind: "ended" }>> = {}): Failure => ({
  kind: "ended",
  retryable: false,
  vmidTakenRace: false,
  reachedEnd: false,
  ...patch,
});
const present = (running: boolean, tagged = true): Look => ({ kind: "present", running, node: "pve1", tagged });

describe("decideFailure: right after the install call failed", () => {
  test.each<[string, Failure, Partial<FailureFacts>, Look | undefined, string]>([
    ["the server's own refusal (400 JSON)", { kind: "refused", status: 400 }, {}, undefined, "failed"],
    [
      "the server's own refusal passed on with 200, a VMID pinned",
      { kind: "refused", status: 200 },
      { vmid: 150, pinned: true },
      undefined,
      "failed",
    ],
    ["a proxy's 401", { kind: "refused", status: 401 }, { vmid: 150, pinned: true }, undefined, "failed"],
    [
      "a gateway's JSON 504: the install may run behind it",
      { kind: "gateway", status: 504 },
      { vmid: 150, pinned: true },
      undefined,
      "follow:start",
    ],
    [
      "a gateway's JSON 504, the VM derives its name (auto VMID)",
      { kind: "gateway", status: 504 },
      {},
      undefined,
      "follow:start",
    ],
    [
      "a gateway's JSON 504 with nothing to recognise the VM by",
      { kind: "gateway", status: 504 },
      { followable: false },
      undefined,
      "failed",
    ],
    [
      "a gateway's JSON 504, a name the user gave, the VMID the server's: followed, its VM looked for by that name",
      { kind: "gateway", status: 504 },
      { followable: false, named: true },
      undefined,
      "follow:start",
    ],
    [
      "a stream lost before the VMID, a name the user gave: followed from its step, its VM looked for by that name",
      { kind: "lost" },
      { followable: false, named: true },
      undefined,
      "follow:stream",
    ],
    [
      "a proxy's 502 page, and no VM of the install on the server: it never began",
      { kind: "no-stream", status: 502, seen: false },
      { vmid: 150, pinned: true },
      undefined,
      "failed",
    ],
    [
      "a proxy's 502 page with no VMID pinned: it never began",
      { kind: "no-stream", status: 502, seen: false },
      {},
      undefined,
      "failed",
    ],
    [
      "no answer at all in time, and nothing on the server: it never began",
      { kind: "no-stream", seen: false },
      { vmid: 150, pinned: true },
      undefined,
      "failed",
    ],
    [
      "a 502 page, yet the install's VM is there: something held the stream back",
      { kind: "no-stream", status: 502, seen: true },
      { vmid: 150, pinned: true },
      undefined,
      "follow:start",
    ],
    [
      "no answer, and the server does not answer a list",
      { kind: "unreachable", serverAnswers: false },
      {},
      undefined,
      "failed",
    ],
    [
      "no answer, but the server answers a list",
      { kind: "unreachable", serverAnswers: true },
      {},
      undefined,
      "follow:start",
    ],
    ["cancelled before the VMID", { kind: "cancelled" }, {}, undefined, "failed"],
    ["cancelled with a VMID", { kind: "cancelled" }, { vmid: 150 }, undefined, "partial:unconfirmed"],
    ["lost stream", { kind: "lost" }, { vmid: 150 }, undefined, "follow:stream"],
    ["lost stream, nothing to recognise the VM by", { kind: "lost" }, { followable: false }, undefined, "unknown"],
    ["SSH key pair race", ended({ retryable: true }), {}, undefined, "retry"],
    ["SSH key pair race again", ended({ retryable: true }), { attempt: 2 }, undefined, "failed"],
    ["ended before a VMID", ended(), {}, undefined, "failed"],
    ["ended, nothing left", ended(), { vmid: 150, vmCreated: true }, { kind: "absent" }, "failed"],
    [
      "ended after the VM was made, it is there",
      ended(),
      { vmid: 150, vmCreated: true },
      present(true),
      "partial:failed",
    ],
    [
      "ended after the VM was made, the server cannot say",
      ended(),
      { vmid: 150, vmCreated: true },
      { kind: "unreadable", error: "x" },
      "partial:failed",
    ],
    [
      "ended before the VM was made, the server cannot say",
      ended(),
      { vmid: 150 },
      { kind: "unreadable", error: "x" },
      "failed",
    ],
    ["auto VMID race lost to another client", ended({ vmidTakenRace: true }), { vmid: 150 }, present(true), "retry"],
    [
      "pinned VMID taken meanwhile",
      ended({ vmidTakenRace: true }),
      { vmid: 150, pinned: true },
      present(true),
      "failed",
    ],
    ["a VM that existed before", ended(), { vmid: 150, existedBefore: true }, present(true), "failed"],
    [
      "the VMID now holds another VM",
      ended(),
      { vmid: 150, vmCreated: true },
      { kind: "other", name: "x-150" },
      "failed",
    ],
    [
      "the last step reached, its end lost",
      ended({ reachedEnd: true }),
      { vmid: 150, vmCreated: true },
      present(true),
      "follow:stream",
    ],
  ])("%s -> %s", (_label, f, patch, seen, want) => {
    const v = decideFailure(f, facts(patch), seen);
    const got = v.kind === "follow" ? `follow:${v.from}` : v.kind === "partial" ? `partial:${v.installState}` : v.kind;
    expect(got).toBe(want);
  });
});

describe("the timeline of a lost stream, from the server's step bounds", () => {
  test("lost at the download: creation, start and removal bounds add up the steps after it", () => {
    const t = timelineOf({ step: "OS preparation > downloading OS image", phase: "download", lostAt: 0 }, OPEN, false);
    expect(t.createBy).toBe(B.download + B.sshKey + B.createVm);
    expect(t.startBy).toBe(t.createBy + B.importDisk + B.initConfig + B.qmStart);
    expect(t.undoBy).toBe(t.startBy + B.waitReady + B.sshInit + 5_000 + 2 * OPEN.commandMs);
    expect(t.settleBy).toBe(t.undoBy);
    expect(B.waitReady).toBe(600_000); // 60 x (5 s connect timeout + 5 s sleep)
    expect(OPEN.sshWaitMs).toBe(600_000);
  });

  test("the migration counts only when a node was asked for", () => {
    const a = timelineOf({ step: "", phase: "initConfig", lostAt: 0 }, OPEN, false);
    const b = timelineOf({ step: "", phase: "initConfig", lostAt: 0 }, OPEN, true);
    expect(b.startBy - a.startBy).toBe(OPEN.migrateMs);
  });

  test("lost after the SSH initialisation: the server can no longer create or remove anything", () => {
    const t = timelineOf(
      { step: "VM initialization > rebooting VM", phase: "waitAfterReboot", lostAt: 42 },
      OPEN,
      false,
    );
    expect(t).toMatchObject({ createBy: 42, startBy: 42, undoBy: 42 });
  });

  test("the events' phases: a step's success can mean the next phase began", () => {
    expect(phaseOfEvent("VM creation > creating VM", "success", "[+] VM created successfully (1.20s)", false)).toBe(
      "importDisk",
    );
    expect(
      phaseOfEvent(
        "VM initialization > initializing configuration",
        "success",
        "[+] VM initialized successfully",
        false,
      ),
    ).toBe("qmStart");
    expect(
      phaseOfEvent(
        "VM initialization > initializing configuration",
        "success",
        "[+] VM initialized successfully",
        true,
      ),
    ).toBe("migrate");
    expect(
      phaseOfEvent("VM initialization > initializing configuration", "success", "[+] VM started successfully", false),
    ).toBe("waitReady");
    expect(
      phaseOfEvent("VM initialization > SSH initialization", "success", "[+] SSH initialization completed", false),
    ).toBe("qmReboot");
    expect(phaseOfEvent("VM initialization > rebooting VM", "processing", "[+] VM rebooting", false)).toBe(
      "waitAfterReboot",
    );
    expect(phaseOfEvent("OS preparation > using OS image", "success", "[+] using OS image", false)).toBe("sshKey");
  });

  test("progress the VM shows tightens the bounds, never loosens them", () => {
    const t = timelineOf({ step: "", phase: "checkVmid", lostAt: 0 }, OPEN, false);
    expect(phaseShown(present(false, false))).toBe("importDisk");
    expect(phaseShown(present(false, true))).toBe("initConfig");
    expect(phaseShown(present(true))).toBe("waitReady");
    expect(phaseShown({ kind: "disabled" })).toBe("initConfig"); // it lists the tag "-"
    expect(phaseShown({ kind: "absent" })).toBeUndefined();
    const running = advance(t, "waitReady", 100_000, OPEN, false);
    expect(running.undoBy).toBe(100_000 + B.waitReady + B.sshInit + 5_000 + 2 * OPEN.commandMs);
    expect(running.undoBy).toBeLessThan(t.undoBy);
    expect(advance(running, "importDisk", 200_000, OPEN, false)).toBe(running);
    const late = advance(t, "waitReady", t.undoBy, OPEN, false);
    expect(late.undoBy).toBe(t.undoBy);
  });
});

describe("decideLost: one round of following", () => {
  const t = timelineOf({ step: "VM initialization > waiting for ready", phase: "waitReady", lostAt: 0 }, OPEN, false);
  const end = { capAt: Number.POSITIVE_INFINITY, vmidKnown: true, grace: 65_000 };
  const mem = { seen: true };

  test("the ghost: the VM runs, but the server may still remove it: follow, never done", () => {
    expect(decideLost(t, present(true), mem, t.undoBy - 1, end).kind).toBe("follow");
    expect(decideLost(t, present(true), mem, t.undoBy, end)).toMatchObject({ kind: "done", inferred: true });
  });

  test("lost after the point of no return, it runs: done at once, not inferred", () => {
    const after = timelineOf(
      { step: "VM initialization > rebooting VM", phase: "waitAfterReboot", lostAt: 0 },
      OPEN,
      false,
    );
    expect(decideLost(after, present(true), mem, 0, end)).toMatchObject({ kind: "done", inferred: false });
  });

  test("seen, then gone: the server cleaned up", () => {
    expect(decideLost(t, { kind: "absent" }, mem, 1, end).kind).toBe("failed");
  });

  test("never seen: follow while it can still be created, then a clear failure", () => {
    const early = timelineOf({ step: "", phase: "download", lostAt: 0 }, OPEN, false);
    expect(decideLost(early, { kind: "absent" }, { seen: false }, early.createBy - 1, end).kind).toBe("follow");
    expect(decideLost(early, { kind: "absent" }, { seen: false }, early.createBy, end).kind).toBe("failed");
  });

  test("stopped past the start bound for longer than the grace: the install failed and left it", () => {
    const early = timelineOf({ step: "", phase: "importDisk", lostAt: 0 }, OPEN, false);
    const at = early.startBy;
    expect(decideLost(early, present(false, false), { seen: true, stoppedSince: at - 1000 }, at, end).kind).toBe(
      "follow",
    );
    expect(decideLost(early, present(false, false), { seen: true, stoppedSince: at - 65_000 }, at, end)).toMatchObject({
      kind: "partial",
      installState: "failed",
    });
  });

  test("the cap before the outcome is known: unconfirmed with a VMID, unknown without", () => {
    expect(decideLost(t, present(true), mem, 1, { ...end, capAt: 1 })).toMatchObject({
      kind: "partial",
      installState: "unconfirmed",
    });
    expect(
      decideLost(t, { kind: "unreadable", error: "x" }, { seen: false }, 1, { ...end, capAt: 1, vmidKnown: false })
        .kind,
    ).toBe("unknown");
  });

  test("the VMID taken by another VM: not this install's", () => {
    expect(decideLost(t, { kind: "other", name: "x-150" }, mem, 1, end).kind).toBe("failed");
  });

  test("a disabled VM lists nothing real: it counts as one that exists and does not run", () => {
    const early = timelineOf({ step: "", phase: "importDisk", lostAt: 0 }, OPEN, false);
    const at = early.startBy;
    const disabled: Look = { kind: "disabled" };
    expect(decideLost(early, disabled, { seen: true, stoppedSince: at - 65_000 }, at, end)).toEqual(
      decideLost(early, present(false), { seen: true, stoppedSince: at - 65_000 }, at, end),
    );
    expect(decideLost(early, disabled, { seen: true, stoppedSince: at - 65_000 }, at, end).kind).toBe("partial");
    // never done, however late: it cannot be seen running
    expect(decideLost(t, disabled, mem, t.undoBy, end).kind).toBe("follow");
    expect(decideLost(t, disabled, { seen: false }, 1, { ...end, capAt: 1, vmidKnown: false })).toMatchObject({
      kind: "partial",
      installState: "unconfirmed",
    });
  });
});

describe("a server that restarted mid-install (its listener refused right after the stream's connection ended)", () => {
  const t = timelineOf({ step: "VM initialization > SSH initialization", phase: "sshInit", lostAt: 0 }, OPEN, false);
  const end = { capAt: Number.POSITIVE_INFINITY, vmidKnown: true, grace: 65_000 };
  const restarted = { seen: true, restartedAt: 1 };

  test("the half-made VM it left, running or stopped: a failed install at once, not after the bound", () => {
    for (const look of [present(true), present(false), present(false, false)]) {
      expect(decideLost(t, look, restarted, 2, end)).toMatchObject({ kind: "partial", installState: "failed" });
    }
    expect((decideLost(t, present(true), restarted, 2, end) as { why: string }).why).toMatch(
      /restarted mid-install .*nothing drives the install any more/,
    );
    // without that evidence the same look is followed on
    expect(decideLost(t, present(true), { seen: true }, 2, end).kind).toBe("follow");
  });

  test("no VM and none seen: nothing was made, a plain failure at once, long before it could no longer be created", () => {
    const early = timelineOf({ step: "", phase: "download", lostAt: 0 }, OPEN, false);
    expect(decideLost(early, { kind: "absent" }, { seen: false, restartedAt: 1 }, 2, end)).toMatchObject({
      kind: "failed",
      why: expect.stringMatching(/before it made the VM/),
    });
  });

  test("the server still down: nothing to decide yet; after the reboot, or past the SSH initialisation, the usual rules", () => {
    const down: Look = { kind: "unreadable", error: "connection refused", refused: true };
    expect(decideLost(t, down, restarted, 2, end).kind).toBe("follow");
    expect(decideLost(t, present(true), { ...restarted, rebooted: true }, 2, end).kind).toBe("done");
    const past = timelineOf({ step: "VM initialization > rebooting VM", phase: "qmReboot", lostAt: 0 }, OPEN, false);
    expect(decideLost(past, present(true), restarted, 2, end)).toMatchObject({ kind: "done" });
  });

  test("remember keeps the evidence through every look", () => {
    let mem: FollowMemory = { seen: false, restartedAt: 5 };
    for (const look of [present(false), present(true), present(false)]) mem = remember(mem, look, 10);
    expect(mem.restartedAt).toBe(5);
  });
});

describe("the reboot rule: running, stopped, running again is past the point where the server removes the VM", () => {
  const t = timelineOf({ step: "VM initialization > SSH initialization", phase: "sshInit", lostAt: 0 }, OPEN, false);
  const end = { capAt: Number.POSITIVE_INFINITY, vmidKnown: true, grace: 65_000 };
  /** The memory after these looks, one second apart. */
  const after = (looks: Look[]) =>
    looks.reduce((mem, look, i) => remember(mem, look, i * 1000), { seen: false } as FollowMemory);

  test("seen: done at once, long before the timeline would allow it, and said why", () => {
    const mem = after([present(true), present(false), present(true)]);
    expect(mem).toMatchObject({ ran: true, stoppedAfterRun: true, rebooted: true });
    const v = decideLost(t, present(true), mem, 3_000, end);
    expect(v).toMatchObject({ kind: "done", inferred: true });
    expect((v as { why: string }).why).toMatch(/seen running, then stopped, then running again/);
    expect(3_000).toBeLessThan(t.undoBy);
  });

  test("missed (never seen stopped): the timeline still decides, as before", () => {
    const mem = after([present(true), present(true), present(true)]);
    expect(mem.rebooted).toBeFalsy();
    expect(decideLost(t, present(true), mem, 3_000, end).kind).toBe("follow");
    expect(decideLost(t, present(true), mem, t.undoBy, end)).toMatchObject({ kind: "done", inferred: true });
  });

  test("stopped before it ever ran, then running: that is qm start, not the reboot", () => {
    const mem = after([present(false, false), present(false), present(true)]);
    expect(mem.rebooted).toBeFalsy();
    expect(decideLost(t, present(true), mem, 3_000, end).kind).toBe("follow");
  });

  test("running, stopped, gone: the clean-up after a failed initialization", () => {
    const mem = after([present(true), present(false)]);
    expect(decideLost(t, { kind: "absent" }, mem, 3_000, end).kind).toBe("failed");
  });

  test("a power state that could not be read, or a disabled VM, is no stop", () => {
    const unread: Look = { kind: "present", node: "pve1", tagged: true };
    expect(after([present(true), unread, present(true)]).rebooted).toBeFalsy();
    expect(after([present(true), { kind: "disabled" }, present(true)]).rebooted).toBeFalsy();
    // nor does an unreadable server change what is remembered
    const mem = after([present(true)]);
    expect(remember(mem, { kind: "unreadable", error: "x" }, 5)).toBe(mem);
  });
});

describe("settle: the next refresh or up decides an unconfirmed install", () => {
  const t = {
    ...timelineOf({ step: "VM initialization > SSH initialization", phase: "sshInit", lostAt: 0 }, OPEN, false),
    seen: true,
  };

  test.each<[string, Look, number, string]>([
    ["runs, the server may still remove it", present(true), 1, "unconfirmed"],
    ["runs, past the removal bound", present(true), t.undoBy, "done"],
    ["gone", { kind: "absent" }, 1, "gone"],
    ["stopped once everything is over", present(false), t.settleBy, "failed-left"],
    ["stopped before that", present(false), 1, "unconfirmed"],
    ["the server cannot say", { kind: "unreadable", error: "x" }, t.settleBy, "unconfirmed"],
    ["another VM holds the VMID", { kind: "other", name: "x" }, 1, "gone"],
  ])("%s -> %s", (_l, seen, now, want) => {
    expect(settled({ vmid: 150, installState: "unconfirmed", installLost: t }, seen, now).kind).toBe(want);
  });
});

describe("settled: the state after settling (for read and update)", () => {
  const lost = {
    ...timelineOf({ step: "VM initialization > SSH initialization", phase: "sshInit", lostAt: 0 }, OPEN, false),
    seen: true,
  };
  const state = {
    vmid: 150,
    vmName: "m-150",
    installState: "unconfirmed" as const,
    installLost: lost,
    installComplete: false,
    installProblem: "x",
  };
  const o = (patch: Partial<Observation>): Observation => ({
    vmid: 150,
    listed: true,
    disabled: false,
    nameMatches: true,
    entry: { vmid: 150, name: "m-150", os: "ubuntu", running: true, node: "pve1", cpu: 2, disk: 16, memory: 2 },
    running: true,
    ...patch,
  });

  test("done: installed, the unconfirmed fields gone", () => {
    const r = settled(state, lookOf(o({})), lost.undoBy);
    expect(r.kind).toBe("done");
    expect(r.kind !== "gone" && r.state).toEqual({
      vmid: 150,
      vmName: "m-150",
      installComplete: true,
      installProblem: undefined,
    });
  });

  test("gone, still unknown, failed and left", () => {
    expect(settled(state, lookOf(o({ listed: false, entry: undefined })), 1).kind).toBe("gone");
    const r = settled(state, lookOf(o({})), 1);
    expect(r).toMatchObject({ kind: "unconfirmed", state: { installState: "unconfirmed" } });
    expect(settled(state, lookOf(o({ running: false })), lost.settleBy)).toMatchObject({
      kind: "failed-left",
      state: { installComplete: false },
    });
  });
});
