// Create against a stub server, for named error frames that go-pve-qemu
// itself never sends but something between us and it may: an `event: error`
// frame ends the install as failed, at once and with its words (the VM is
// kept as a partial create when it exists); an `sse_error` frame is the
// stream's failure, so the install is followed and recorded only when the
// server can no longer undo it.
import { listEntry } from "./fixtures";
import type { GoPveQemuApi, ListOptions } from "../../provider/client/api";
import { OperationFailedError } from "../../provider/client/errors";
import type { FailureShape } from "../../provider/client/stream/types";
import type { VmEntry } from "../../provider/client/schemas";
import { PartialError, create } from "../../provider/lifecycle";
import { VirtualClock } from "./clock";
import { ProcessScope } from "../../provider/lifecycle";

const WEB: VmEntry = listEntry({ vmid: 150, name: "web-150" });

function stub(
  vms: VmEntry[],
  frame: { shape: FailureShape; frame: string; step?: string },
  lists: ListOptions[] = [],
): GoPveQemuApi {
  return {
    list: async (opts: ListOptions = {}) => {
      lists.push(opts);
      return { vms, nodes: [] };
    },
    status: async (vmid: number) => (vms.find((vm) => vm.vmid === vmid)?.running ? "running" : "stopped"),
    install: async () => {
      vms.push({ ...WEB });
      throw new OperationFailedError(
        {
          operation: "install",
          serverMessage: `in-band "${frame.frame}" frame of the stream: upstream exploded`,
          tail: [],
          ...frame,
        },
        { endpoint: "POST /api/vm/install", vmid: 150 },
      );
    },
  } as unknown as GoPveQemuApi;
}

function ctxOf(client: GoPveQemuApi, clock: VirtualClock, lines: string[]) {
  return {
    process: new ProcessScope(),
    reporter: {
      info: (m: string) => lines.push(m),
      warn: (m: string) => lines.push(`warn ${m}`),
      debug: () => undefined,
    },
    client: () => client,
    connectionDefaults: { endpoint: "http://127.0.0.1:9" },
    clock,
    // Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
    timing: { settleWaitMs: Number.POSITIVE_INFINITY },
  };
}

test("an `event: error` frame fails the install at once, with its words; the VM it left is kept as a partial create", async () => {
  const clock = new VirtualClock();
  const lines: string[] = [];
  const vms: VmEntry[] = [];
  const client = stub(vms, { shape: "error-event", frame: "error", step: "VM initialization > waiting for ready" });
  const err = await create(
    { os: "ubuntu", version: "24.04", name: "web", vmid: 150 } as never,
    ctxOf(client, clock, lines),
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PartialError);
  const partial = err as PartialError;
  expect(partial.state).toMatchObject({ vmid: 150, installComplete: false });
  expect(partial.state.installState).toBeUndefined();
  expect(partial.reasons[0]).toMatch(
    /^the install of VM 150 failed after the VM was created: .*the server reported an error.*upstream exploded/,
  );
  // nothing was followed: no waiting on the clock, no "lost the stream"
  expect(clock.elapsed()).toBeLessThan(10_000);
  expect(lines.some((l) => /lost the install stream|following/.test(l))).toBe(false);
});

test("an `event: error` frame with no VM left: a plain failure, nothing in state", async () => {
  const clock = new VirtualClock();
  const vms: VmEntry[] = [];
  const client = stub(vms, { shape: "error-event", frame: "error", step: "preparation > assigning IP" });
  (client as unknown as { install: () => Promise<never> }).install = async () => {
    throw new OperationFailedError(
      { operation: "install", shape: "error-event", frame: "error", serverMessage: "operation failed", tail: [] },
      { endpoint: "POST /api/vm/install", vmid: 150 },
    );
  };
  const err = await create(
    { os: "ubuntu", version: "24.04", name: "web", vmid: 150 } as never,
    ctxOf(client, clock, []),
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(Error);
  expect(err).not.toBeInstanceOf(PartialError);
  expect((err as Error).message).toMatch(
    /^the install of VM 150 failed; nothing is left on the server: .*operation failed/,
  );
  expect(clock.elapsed()).toBeLessThan(10_000);
});

test("an `sse_error` frame: the stream's failure; the install is followed and recorded only when the server can no longer undo it", async () => {
  const clock = new VirtualClock();
  const vms: VmEntry[] = [];
  const lines: string[] = [];
  const lists: ListOptions[] = [];
  const client = stub(vms, { shape: "stream-error", frame: "sse_error" }, lists);
  const { state } = await create(
    { os: "ubuntu", version: "24.04", name: "web", vmid: 150 } as never,
    ctxOf(client, clock, lines),
  );
  expect(state).toMatchObject({ vmid: 150, running: true, installComplete: true });
  expect(lines.find((l) => l.startsWith("warn lost the install stream"))).toMatch(
    /^warn lost the install stream at the start \(the stream reported its own failure: in-band "sse_error" frame of the stream: upstream exploded\)/,
  );
  // running from the first look: the SSH wait (10 min) and the init script's bound (20 min) had to pass
  expect(clock.elapsed()).toBeGreaterThanOrEqual(30 * 60_000);
  // The list before the install runs while installs to this server wait for each other: it never
  // waits for a shared list in flight. The follow's looks may.
  expect(lists[0]).toMatchObject({ immediate: true });
  expect(lists.length).toBeGreaterThan(1);
  expect(lists.slice(1).every((o) => o.immediate === undefined)).toBe(true);
});
