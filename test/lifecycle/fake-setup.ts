// One VM (101) on the in-memory server, a virtual clock, and a context whose
// reporter keeps the info and warning lines: the setting of the unit tests
// of shutdown and update.
import type { LifecycleContext, Timing } from "../../provider/lifecycle";
import { VirtualClock } from "./clock";
import { FakeServer } from "./fake-server";
import { ProcessScope } from "../../provider/lifecycle";

export interface Setup {
  clock: VirtualClock;
  server: FakeServer;
  ctx: LifecycleContext;
  lines: string[];
}

export function setup(timing: Partial<Timing> = {}, signal?: AbortSignal): Setup {
  const clock = new VirtualClock();
  const server = new FakeServer(clock);
  server.add({ vmid: 101 });
  const lines: string[] = [];
  const client = server.client();
  const ctx: LifecycleContext = {
    process: new ProcessScope(),
    reporter: {
      info: (m) => lines.push(`info ${m}`),
      warn: (m) => lines.push(`warn ${m}`),
      debug: () => undefined,
    },
    client: () => client,
    timing,
    clock,
    signal,
  };
  return { clock, server, ctx, lines };
}
