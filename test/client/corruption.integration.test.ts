// The client against the simulator's stream corruption (the real server's, on
// demand): broken chunk framing, a cut mid-frame, a dropped or stalled
// connection, at steps of install, start, reboot and set/node. Each must end as
// "stream lost" (connection-lost or idle-timeout, code GPQ_STREAM_LOST) - never
// as success, never as the server's own verdict - except where the whole
// stream, close included, arrived before the break.
import { GoPveQemuClient } from "../../provider/client";
import type { OperationFailedError } from "../../provider/client/errors";
import { startSimulator, type FaultRule, type SimulatorHandle } from "../../simulator";

let sim: SimulatorHandle;
let client: GoPveQemuClient;

beforeEach(async () => {
  sim = await startSimulator({ speed: 1000, sshKey: true, imageCache: ["ubuntu/24.04"] });
  client = new GoPveQemuClient({ endpoint: sim.url });
});
afterEach(async () => {
  await client.close();
  await sim.close();
});

type Corruption = Pick<FaultRule, "kind" | "variant">;
const BREAKS: Array<[string, Corruption]> = [
  ["garble fragment", { kind: "garble", variant: "fragment" }],
  ["garble duplicate", { kind: "garble", variant: "duplicate" }],
  ["garble crlf", { kind: "garble", variant: "crlf" }],
  ["cut", { kind: "cut" }],
  ["drop", { kind: "drop" }],
];

type Op = "install" | "start" | "reboot" | "setNode";
const CASES: Array<[Op, string, number]> = [
  ["install", "checking VMID", 0],
  ["install", "creating VM", 0],
  ["install", "SSH initialization", 5],
  ["install", "rebooting VM", 0],
  ["install", "finalizing", 2],
  ["start", "starting VM", 0],
  ["start", "waiting for SSH", 0],
  ["start", "finalizing", 0],
  ["reboot", "rebooting VM", 0],
  ["reboot", "finalizing", 0],
  ["setNode", "migrating", 3],
];

async function run(op: Op): Promise<unknown> {
  switch (op) {
    case "install":
      return client.install({ os: "ubuntu", version: "24.04", id: 150 });
    case "start":
      sim.addVm({ vmid: 150, os: "ubuntu" });
      return client.start(150);
    case "reboot":
      sim.addVm({ vmid: 150, os: "ubuntu", running: true });
      return client.reboot(150);
    case "setNode":
      sim.addVm({ vmid: 150 });
      return client.migrate(150, "pve2");
  }
}

const outcome = (p: Promise<unknown>): Promise<{ ok: true } | { ok: false; err: OperationFailedError }> =>
  p.then(
    () => ({ ok: true as const }),
    (err: OperationFailedError) => ({ ok: false as const, err }),
  );

describe.each(BREAKS)("%s", (_label, corruption) => {
  test.each(CASES)("%s at %s: the stream is lost, the operation still ends server-side", async (op, step, skip) => {
    sim.addFault({ op, step, skip, ...corruption } as FaultRule);
    const result = await outcome(run(op));
    expect(result.ok).toBe(false);
    const { err } = result as { err: OperationFailedError };
    expect([err.shape, err.code]).toEqual(["connection-lost", "GPQ_STREAM_LOST"]);
    await sim.idle();
    // The server carried on: the operation's effect is there.
    const vm = sim.vm(150);
    if (op === "setNode") expect(vm?.node).toBe("pve2");
    else expect(vm?.running).toBe(true);
  });
});

describe("where the whole stream arrived first", () => {
  test("garble at close: event: close came as a whole chunk, so the outcome is the server's", async () => {
    sim.addVm({ vmid: 150, os: "ubuntu" });
    sim.addFault({ op: "start", step: "close", kind: "garble" });
    await expect(client.start(150)).resolves.toMatchObject({ kind: "start" });
  });

  test("cut at close: half of the close frame is not a close", async () => {
    sim.addVm({ vmid: 150, os: "ubuntu" });
    sim.addFault({ op: "start", step: "close", kind: "cut" });
    const result = await outcome(client.start(150));
    expect(result.ok ? "success" : result.err.code).toBe("GPQ_STREAM_LOST");
  });

  test("late: a migration line after close changes nothing; lost or reordered output lines neither", async () => {
    sim.addVm({ vmid: 150 });
    sim.addFault({ op: "setNode", step: "migrating", kind: "late", skip: 4 });
    await expect(client.migrate(150, "pve2")).resolves.toMatchObject({ kind: "migrate" });
    sim.addFault({ op: "setNode", step: "migrating", kind: "lose", lines: 3, skip: 2 });
    await expect(client.migrate(150, "pve1")).resolves.toMatchObject({ kind: "migrate" });
    sim.addFault({ op: "install", step: "SSH initialization", kind: "reorder", lines: 2, skip: 4 });
    await expect(client.install({ os: "ubuntu", version: "24.04", id: 151 })).resolves.toMatchObject({
      facts: { vmid: 151, completed: true },
    });
  });
});

describe("stall: no more bytes, the connection stays open", () => {
  test.each([
    ["install", "SSH initialization", 3],
    ["setNode", "migrating", 2],
  ] as const)("%s at %s: idle-timeout, a lost stream", async (op, step, skip) => {
    sim.addFault({ op, step, kind: "stall", skip } as FaultRule);
    if (op === "setNode") sim.addVm({ vmid: 150 });
    const p =
      op === "install"
        ? client.install({ os: "ubuntu", version: "24.04", id: 150 }, { idleTimeoutMs: 300 })
        : client.migrate(150, "pve2", { idleTimeoutMs: 300 });
    const result = await outcome(p);
    expect(result.ok ? "success" : [result.err.shape, result.err.code]).toEqual(["idle-timeout", "GPQ_STREAM_LOST"]);
  });
});
