// An unconfirmed install (its stream was lost before the server could no
// longer undo it) is settled by the next refresh or update, on a virtual
// clock against the in-memory server.
import { read, update } from "../../provider/lifecycle";
import type { LifecycleContext, VmState } from "../../provider/lifecycle";
import type { LostInstall } from "../../provider/lifecycle/decide";
import { VirtualClock } from "./clock";
import { FakeServer } from "./fake-server";
import { inputs, stateOf } from "./fixtures";

function setup(): { clock: VirtualClock; server: FakeServer; ctx: LifecycleContext; lines: string[] } {
  const clock = new VirtualClock();
  const server = new FakeServer(clock);
  const lines: string[] = [];
  const client = server.client();
  return {
    clock,
    server,
    lines,
    ctx: {
      reporter: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), debug: () => undefined },
      client: () => client,
      clock,
    },
  };
}

/** Lost during the SSH initialisation: the server may remove the VM for another 10 minutes. */
function unconfirmed(clock: VirtualClock, patch: Partial<LostInstall> = {}): VmState {
  const t0 = clock.now();
  const installLost: LostInstall = {
    step: "VM initialization > SSH initialization",
    phase: "sshInit",
    lostAt: t0,
    createBy: t0,
    startBy: t0,
    undoBy: t0 + 600_000,
    settleBy: t0 + 900_000,
    seen: false,
    ...patch,
  };
  return stateOf(inputs(), {
    installComplete: false,
    installProblem: "lost the install stream",
    installState: "unconfirmed",
    installLost,
  });
}

test("the server can still remove the VM: it stays unconfirmed, and that it was seen is remembered", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const r = await read("101", unconfirmed(s.clock), s.ctx);
  expect(r?.state).toMatchObject({ installState: "unconfirmed", installComplete: false });
  expect(r?.state.installLost?.seen).toBe(true);
  expect(s.lines.some((l) => /its install is still unconfirmed/.test(l))).toBe(true);
});

test("past the point where the server can undo it, a running VM is settled as installed", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const state = unconfirmed(s.clock);
  await s.clock.after(600_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state.installComplete).toBe(true);
  expect(r?.state).not.toHaveProperty("installState");
  expect(r?.state).not.toHaveProperty("installLost");
  expect(r?.state).not.toHaveProperty("installProblem");
  expect(s.lines).toContainEqual(expect.stringMatching(/^info VM web-101 \(101\): its install is settled as complete/));
});

test("stopped after every step that would start it: settled as failed, kept in state with the reason", async () => {
  const s = setup();
  s.server.add({ vmid: 101, running: false });
  const state = unconfirmed(s.clock, { seen: true });
  await s.clock.after(900_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state).toMatchObject({ installComplete: false, running: false });
  expect(r?.state).not.toHaveProperty("installState");
  expect(r?.state.installProblem).toBeTruthy();
  expect(s.lines).toContainEqual(expect.stringMatching(/^warn VM web-101 \(101\): its install is settled as failed/));
});

test("removed by the server (its clean-up): the refresh drops it", async () => {
  const s = setup();
  expect(await read("101", unconfirmed(s.clock, { seen: true }), s.ctx)).toBeUndefined();
});

test("an update settles it too, before planning", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const state = unconfirmed(s.clock);
  await s.clock.after(600_000);
  const next = await update("101", state, inputs(), s.ctx);
  expect(next.installComplete).toBe(true);
  expect(next).not.toHaveProperty("installState");
  expect(s.lines.some((l) => /comes from an install that did not finish/.test(l))).toBe(false);
});

test("a state of the previous release (no install state at all) refreshes unchanged", async () => {
  const s = setup();
  s.server.add({ vmid: 101 });
  const old = stateOf(inputs());
  expect((await read("101", old, s.ctx))?.state).toEqual(old);
  expect(s.lines).toEqual([]);
});

test("a disabled VM (node '-', nothing real listed) is no evidence: the install stays unconfirmed", async () => {
  const s = setup();
  s.server.add({ vmid: 101, node: "-", os: "-", running: false, name: "whatever" });
  const state = unconfirmed(s.clock, { seen: true });
  await s.clock.after(900_000);
  const r = await read("101", state, s.ctx);
  expect(r?.state).toMatchObject({ installState: "unconfirmed", disabled: true });
});
