// An unconfirmed install on a virtual clock against the in-memory server:
// the state a lost stream (or a cancel) left, and a context to settle it in.
import type { LifecycleContext, VmState } from "../../provider/lifecycle";
import type { LostInstall } from "../../provider/lifecycle/model/lost-install";
import { VirtualClock } from "./clock";
import { FakeServer } from "./fake-server";
import { inputs, stateOf } from "./fixtures";
import { ProcessScope } from "../../provider/lifecycle";

export function setup(): { clock: VirtualClock; server: FakeServer; ctx: LifecycleContext; lines: string[] } {
  const clock = new VirtualClock();
  const server = new FakeServer(clock);
  const lines: string[] = [];
  const client = server.client();
  return {
    clock,
    server,
    lines,
    ctx: {
      process: new ProcessScope(),
      reporter: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), debug: () => undefined },
      client: () => client,
      clock,
      // Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
      timing: { settleWaitMs: Number.POSITIVE_INFINITY },
    },
  };
}

/** Lost during the SSH initialisation: the server may remove the VM for another 10 minutes. */
export function unconfirmed(clock: VirtualClock, patch: Partial<LostInstall> = {}): VmState {
  const t0 = clock.now();
  const installLost: LostInstall = {
    step: "VM initialization > SSH initialization",
    phase: "sshInit",
    lostAt: t0,
    createBy: t0,
    startBy: t0,
    undoBy: t0 + 600_000,
    settleBy: t0 + 600_000, // the latest of the deadlines above, as the timeline's arithmetic gives it
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
