// observe and its one mapping to state, against the in-memory server: the
// node-local `status` of a real cluster, disabled and reused VMIDs, the
// list's GiB truncation.
import { LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import { observe, observeFor, observedFields, powerWord } from "../../provider/lifecycle/observe/observe";
import type { GoPveQemuApi } from "../../provider/client/api";
import { HttpStatusError } from "../../provider/client/errors";
import { redactor } from "../../provider/lifecycle/core/redact";
import { VirtualClock } from "./clock";
import { FakeServer } from "./fake-server";

function server(): FakeServer {
  return new FakeServer(new VirtualClock());
}

const KNOWN = { vmName: "web-101", node: "pve1", cpu: 2, memoryMb: 3000, diskGb: 16, running: true };

test("a stopped VM on the main node: listed, ours by name, `status` asked and agrees", async () => {
  const s = server();
  s.add({ vmid: 101, running: false });
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen).toMatchObject({ listed: true, disabled: false, nameMatches: true, status: "stopped", running: false });
  expect(powerWord(seen)).toBe("stopped");
  expect(s.calls.map((c) => c.call)).toEqual(["list", "status"]);
});

test("a running VM: the list's flag, which the server's own preconditions read; `status` is not asked", async () => {
  const s = server();
  s.add({ vmid: 101, running: true });
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen).toMatchObject({ listed: true, nameMatches: true, running: true });
  expect(seen.status).toBeUndefined();
  expect(powerWord(seen)).toBe("running");
  expect(s.calls.map((c) => c.call)).toEqual(["list"]);
});

test("the list lags a start (it says stopped, `status` says running): running", async () => {
  const client = {
    list: async () => ({
      vms: [{ vmid: 101, name: "web-101", os: "ubuntu", running: false, node: "pve1", cpu: 2, disk: 16, memory: 2 }],
      nodes: [],
    }),
    status: async () => "running",
  } as unknown as GoPveQemuApi;
  const seen = await observe(client, 101, { vmName: "web-101" });
  expect(seen).toMatchObject({ status: "running", running: true });
  expect(observedFields(seen, KNOWN).running).toBe(true);
});

test("a stopped VM on another node: `status` fails with 500 exit status 2, the list's flag answers", async () => {
  const s = server();
  s.add({ vmid: 101, node: "pve2", running: false });
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen.status).toBeUndefined();
  expect(seen.statusError).toBeInstanceOf(HttpStatusError);
  expect((seen.statusError as HttpStatusError).serverMessage).toBe("failed to get VM status: exit status 2");
  expect(seen.running).toBe(false);
  expect(powerWord(seen)).toBe("stopped");
  expect(observedFields(seen, KNOWN)).toMatchObject({ node: "pve2", running: false });
});

test("not listed: nothing more is asked", async () => {
  const s = server();
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen).toEqual({ vmid: 101, listed: false, disabled: false, nameMatches: false });
  expect(powerWord(seen)).toBeUndefined();
  expect(observedFields(seen, KNOWN)).toEqual(KNOWN);
  expect(s.calls.map((c) => c.call)).toEqual(["list"]);
});

test("another VM holds the VMID: nameMatches false, and its status is not asked", async () => {
  const s = server();
  s.add({ vmid: 101, name: "stranger-101" });
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen).toMatchObject({ listed: true, nameMatches: false });
  expect(s.count("status")).toBe(0);
  // no expectation: any name is ours
  expect((await observe(s.client(), 101)).nameMatches).toBe(true);
});

test("disabled (node '-'): no status asked, the known values are kept and `disabled` set", async () => {
  const s = server();
  s.add({ vmid: 101, name: "whatever", node: "-", cpu: 0, memoryMb: 0, diskGb: 0, os: "-" });
  const seen = await observe(s.client(), 101, { vmName: "web-101" });
  expect(seen).toMatchObject({ listed: true, disabled: true, nameMatches: true });
  expect(seen.running).toBeUndefined();
  expect(s.count("status")).toBe(0);
  expect(observedFields(seen, KNOWN)).toEqual({ ...KNOWN, disabled: true });
});

test("the mapping: real values from the list, GiB truncation is not drift, drift is", async () => {
  const s = server();
  s.add({ vmid: 101, memoryMb: 3000, diskGb: 16.5, cpu: 4 });
  const seen = await observe(s.client(), 101);
  expect(observedFields(seen, KNOWN)).toEqual({
    vmName: "web-101",
    node: "pve1",
    cpu: 4,
    memoryMb: 3000, // lists as 2 GiB: the known 3000 stays
    diskGb: 16,
    running: true,
    disabled: undefined,
  });
  s.vms.get(101)!.memoryMb = 4096;
  expect(observedFields(await observe(s.client(), 101), KNOWN).memoryMb).toBe(4096);
});

test("status: false asks the list only", async () => {
  const s = server();
  s.add({ vmid: 101 });
  const seen = await observe(s.client(), 101, { status: false });
  expect(seen.running).toBe(true);
  expect(s.calls.map((c) => c.call)).toEqual(["list"]);
});

test("a cancellation during `status` is rethrown, not taken for a node-local failure", async () => {
  const ac = new AbortController();
  const cancelled = new Error("cancelled");
  const client = {
    list: async () => ({
      vms: [{ vmid: 101, name: "web-101", os: "ubuntu", running: false, node: "pve1", cpu: 2, disk: 16, memory: 2 }],
      nodes: [],
    }),
    status: async () => {
      ac.abort();
      throw cancelled;
    },
  } as unknown as GoPveQemuApi;
  await expect(observe(client, 101, {}, ac.signal)).rejects.toBe(cancelled);
});

test("observeFor: a list that fails says where and what for, without secrets", async () => {
  const client = {
    list: async () => {
      throw new Error("GET http://x/api/vm/list failed: token tok-secret-1 refused");
    },
  } as unknown as GoPveQemuApi;
  const err = await observeFor(
    client,
    101,
    {},
    {
      endpoint: "http://x",
      doing: "to read VM web-101 (101)",
      redact: redactor(["tok-secret-1"]),
    },
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LifecycleError);
  expect((err as LifecycleError).code).toBe("GPQ_UNREACHABLE");
  expect((err as Error).message).toBe(
    "could not list the VMs on http://x to read VM web-101 (101): GET http://x/api/vm/list failed: token *** refused",
  );
  expect(String((err as Error).cause)).not.toContain("tok-secret-1");
});
