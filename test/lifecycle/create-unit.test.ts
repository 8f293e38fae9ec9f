// create against a stub client on a virtual clock, for what the simulator
// does not produce: an in-band error frame of something between us and the
// server (a proxy's `event: error`), which is the stream's failure, not the
// install's: the install is followed, never recorded as failed by the server.
import type { GoPveQemuApi, ListOptions } from "../../provider/client/api";
import { OperationFailedError } from "../../provider/client/errors";
import type { VmEntry } from "../../provider/client/schemas";
import { create } from "../../provider/lifecycle";
import { VirtualClock } from "./clock";

function stub(vms: VmEntry[], onInstall: () => void, lists: ListOptions[] = []): GoPveQemuApi {
  return {
    list: async (opts: ListOptions = {}) => {
      lists.push(opts);
      return { vms, nodes: [] };
    },
    status: async (vmid: number) => (vms.find((vm) => vm.vmid === vmid)?.running ? "running" : "stopped"),
    install: async () => {
      onInstall();
      throw new OperationFailedError(
        { operation: "install", shape: "error-event", serverMessage: "upstream exploded", tail: [] },
        { endpoint: "POST /api/vm/install", vmid: 150 },
      );
    },
  } as unknown as GoPveQemuApi;
}

test("an in-band error frame: the stream's failure; the install is followed and recorded only when the server can no longer undo it", async () => {
  const clock = new VirtualClock();
  const vms: VmEntry[] = [];
  const lines: string[] = [];
  const lists: ListOptions[] = [];
  const client = stub(
    vms,
    () => {
      vms.push({ vmid: 150, name: "web-150", os: "ubuntu", running: true, node: "pve1", cpu: 2, disk: 16, memory: 2 });
    },
    lists,
  );
  const { state } = await create({ os: "ubuntu", version: "24.04", name: "web", vmid: 150 } as never, {
    reporter: { info: (m) => lines.push(m), warn: (m) => lines.push(`warn ${m}`), debug: () => undefined },
    client: () => client,
    connectionDefaults: { endpoint: "http://127.0.0.1:9" },
    clock,
  });
  expect(state).toMatchObject({ vmid: 150, running: true, installComplete: true });
  expect(lines.find((l) => l.startsWith("warn lost the install stream"))).toMatch(
    /^warn lost the install stream at the start \(an error frame in the stream, not from the install: upstream exploded\)/,
  );
  // running from the first look: the SSH wait (10 min) and the init script's bound (20 min) had to pass
  expect(clock.elapsed()).toBeGreaterThanOrEqual(30 * 60_000);
  // The list before the install runs while installs to this server wait for each other: it never
  // waits for a shared list in flight. The follow's looks may.
  expect(lists[0]).toMatchObject({ immediate: true });
  expect(lists.length).toBeGreaterThan(1);
  expect(lists.slice(1).every((o) => o.immediate === undefined)).toBe(true);
});
