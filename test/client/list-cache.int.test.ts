// Shared list answers through the real client against the simulator, counted
// by the simulator's own request counter: concurrent lists make one request,
// a write (even a refused one) and an install in between make the next list
// a new request that shows what the write did, and clients without a window
// share nothing.
import { GoPveQemuClient, ServerWritesRegistry } from "../../provider/client";
import { CancelledError } from "../../provider/client/errors";
import { startSimulator, type SimulatorHandle } from "../../simulator";

let sim: SimulatorHandle;
const clients: GoPveQemuClient[] = [];
/** One process's record of writes, as the provider core hands it to every client it makes. */
let writes: ServerWritesRegistry;

/** A window far longer than any test: only writes and `fresh` end a shared answer here. */
const LONG = 600_000;

function client(listShareMs?: number, headers?: Record<string, string>): GoPveQemuClient {
  const c = new GoPveQemuClient({ endpoint: sim.url, listShareMs, headers, serverWrites: writes });
  clients.push(c);
  return c;
}

const lists = (): number => sim.stats().requests.list ?? 0;

beforeEach(async () => {
  writes = new ServerWritesRegistry();
  sim = await startSimulator({ speed: 1000, sshKey: true, imageCache: ["ubuntu/24.04"] });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
});

it("concurrent lists of one client make one request and get the same answer", async () => {
  const c = client(LONG);
  const answers = await Promise.all([c.list(), c.list(), c.list(), c.list(), c.list()]);
  expect(lists()).toBe(1);
  for (const a of answers) expect(a).toBe(answers[0]);
  await c.list();
  expect(lists()).toBe(1);
});

it("a caller that cancels gets the client's CancelledError; the shared request answers the others", async () => {
  const c = client(LONG);
  const controller = new AbortController();
  const cancelledRead = c.list({ signal: controller.signal });
  const other = c.list({ signal: new AbortController().signal });
  controller.abort(new Error("user"));
  const err = await cancelledRead.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(CancelledError);
  await expect(other).resolves.toMatchObject({ vms: [] });
  expect(lists()).toBe(1);
  // The same words as a cancelled request of its own (a client that shares nothing).
  const own = await client()
    .list({ signal: AbortSignal.abort(new Error("user")) })
    .catch((e: unknown) => e);
  expect(own).toBeInstanceOf(CancelledError);
  expect((err as Error).message).toBe((own as Error).message);
});

it("without a window every list is a request of its own", async () => {
  const c = client();
  await Promise.all([c.list(), c.list(), c.list()]);
  expect(lists()).toBe(3);
});

it("after an install the next list is a new request that shows the new VM", async () => {
  const c = client(LONG);
  expect((await c.list()).vms).toHaveLength(0);
  const done = await c.install({ os: "ubuntu", version: "24.04" });
  const after = await c.list();
  expect(lists()).toBe(2);
  expect(after.vms.map((vm) => vm.vmid)).toEqual([done.facts.vmid]);
});

it("mid-install, a list after the VM-creating event is a new request that shows the VM", async () => {
  const c = client(LONG);
  let early: Promise<unknown> | undefined;
  let after: Promise<number> | undefined;
  await c.install(
    { os: "ubuntu", version: "24.04" },
    {
      onEvent: (e) => {
        if (e.kind !== "step" || e.status !== "success") return;
        // A list early in the install, in the same write as the next one...
        if (e.step === "preparation > checking VMID") early = c.list();
        // ...is not the answer once the server says it created the VM.
        if (e.step === "VM creation > creating VM") after = c.list().then((l) => l.vms.length);
      },
    },
  );
  await early;
  await expect(after).resolves.toBe(1);
  expect(lists()).toBe(2);
});

it("a refused write also ends the shared answer", async () => {
  const c = client(LONG);
  await c.list();
  await expect(c.stop(999)).rejects.toThrow();
  await c.list();
  expect(lists()).toBe(2);
});

it("a write through another client of the same server ends this client's shared answer", async () => {
  const reader = client(LONG);
  const writer = client(LONG, { "x-other": "credentials" });
  await reader.list();
  await expect(writer.destroy(999)).rejects.toThrow();
  await reader.list();
  expect(lists()).toBe(2);
});

it("a list with a timeout of its own is a request of its own", async () => {
  const c = client(LONG);
  await c.list();
  await c.list({ timeoutMs: 5000 });
  expect(lists()).toBe(2);
});

it("fresh: true makes a new request", async () => {
  const c = client(LONG);
  await c.list();
  await c.list({ fresh: true });
  expect(lists()).toBe(2);
});
