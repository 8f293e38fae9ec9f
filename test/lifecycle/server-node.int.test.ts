// `node` naming the server's own node. The server creates every VM on its own
// node and migrates it to `node` afterwards; Proxmox refuses a migration to the
// node the VM is on, and the server just closes the stream (the recording
// install-node-main-refused.raw). The provider learns the node from that
// refusal (or from an install without `node`), destroys the half-made VM and
// installs again without `node`: the VM ends on that node, installed.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { create, fileJournal, fileServerNodes } from "../../provider/lifecycle";
import type { ServerNodes } from "../../provider/lifecycle";
import { messages, startHarness } from "./harness";
import type { Harness } from "./harness";

const FAST = { imageCache: ["ubuntu/24.04"], nodes: ["pve1", "pve2"], durations: { rebootStopped: 0 } };

let h: Harness;
let dirs: string[] = [];
afterEach(async () => {
  await h?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function store(): { nodes: ServerNodes; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "server-nodes-"));
  dirs.push(dir);
  return { nodes: fileServerNodes(dir), dir };
}

describe("an install naming the server's own node", () => {
  test("on a fresh server: refused, learned, the half-made VM destroyed, installed there without `node`", async () => {
    h = await startHarness(FAST);
    const { nodes, dir } = store();
    const ctx = h.ctx({ serverNodes: nodes });
    const { state } = await create(h.inputs({ name: "db", vmid: 140, node: "pve1" }), ctx);
    expect(state).toMatchObject({ vmid: 140, node: "pve1", running: true, installComplete: true });
    expect(h.sim.vm(140)).toMatchObject({ node: "pve1", status: "running", name: "db-140" });
    expect(h.sim.vms().map((v) => v.vmid)).toEqual([140]);
    // the first install was cut short by the refusal, the second one completed
    expect(h.sim.stats()).toMatchObject({ installsStarted: 2, installsSucceeded: 1, installsSilent: 1 });
    const warn = messages(ctx.lines, "warn");
    expect(warn[0]).toBe(
      'node pve1 is the server\'s own node, where it creates every VM; Proxmox refused to migrate VM db-140 (140) to node pve1: "target is local node". Destroying the half-made VM db-140 (140), never started',
    );
    expect(warn[1]).toMatch(
      /^node pve1 is the server's own node \(.*\); the half-made VM is destroyed, and the install runs there without naming it; retrying the install once$/,
    );
    expect(await nodes.get(h.endpoint)).toBe("pve1");
    // written down beside the journal, for the next run and for getNodes()
    expect(await fileServerNodes(dir).get(`${h.endpoint}/`)).toBe("pve1");
  });

  test("once known, the install leaves `node` out at once: one install, no refusal", async () => {
    h = await startHarness(FAST);
    const { nodes } = store();
    await nodes.learn(h.endpoint, "pve1", "test");
    const ctx = h.ctx({ serverNodes: nodes });
    const { state } = await create(h.inputs({ vmid: 141, node: "pve1" }), ctx);
    expect(state).toMatchObject({ vmid: 141, node: "pve1", installComplete: true });
    expect(h.sim.stats()).toMatchObject({ installsStarted: 1, installsSucceeded: 1, installsSilent: 0 });
    expect(messages(ctx.lines, "warn")).toEqual([]);
    // no migration step in the progress: the install names no node
    expect(messages(ctx.lines, "info").some((m) => m.includes("migrating VM"))).toBe(false);
  });

  test("another node is still migrated to, with the server's own node known", async () => {
    h = await startHarness(FAST);
    const { nodes } = store();
    await nodes.learn(h.endpoint, "pve1", "test");
    const { state } = await create(h.inputs({ vmid: 142, node: "pve2" }), h.ctx({ serverNodes: nodes }));
    expect(state).toMatchObject({ vmid: 142, node: "pve2", installComplete: true });
    expect(h.sim.vm(142)?.node).toBe("pve2");
  });

  test("an install without `node` shows the server's node: it is learned", async () => {
    h = await startHarness({ ...FAST, mainNode: "pve2" });
    const { nodes } = store();
    await create(h.inputs({ vmid: 143 }), h.ctx({ serverNodes: nodes }));
    expect(await nodes.get(h.endpoint)).toBe("pve2");
  });

  test("a record that no longer holds: the VM lands on the server's node now, said, and learned", async () => {
    h = await startHarness({ ...FAST, mainNode: "pve2" });
    const { nodes } = store();
    await nodes.learn(h.endpoint, "pve1", "an older configuration");
    const ctx = h.ctx({ serverNodes: nodes });
    const { state } = await create(h.inputs({ vmid: 144, node: "pve1" }), ctx);
    // recorded where it is: the next diff shows the migration to pve1
    expect(state).toMatchObject({ vmid: 144, node: "pve2", installComplete: true });
    expect(messages(ctx.lines, "warn")).toEqual([
      "node pve1 was taken for the server's own node, but the install put the VM on pve2, which is the server's now: the next `up` migrates it to pve1",
    ]);
    expect(await nodes.get(h.endpoint)).toBe("pve2");
  });

  test("a half-made VM that cannot be destroyed stays in state as an incomplete install", async () => {
    h = await startHarness({ ...FAST, faults: [{ op: "destroy", step: "destroy", kind: "fail" }] });
    const { nodes } = store();
    const ctx = h.ctx({ serverNodes: nodes });
    const err = await create(h.inputs({ vmid: 145, node: "pve1" }), ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "PartialCreateError" });
    expect((err as { state: unknown }).state).toMatchObject({ vmid: 145, installComplete: false });
    expect(h.sim.vm(145)).toMatchObject({ node: "pve1", status: "stopped" });
    // the next `up` replaces it, and then installs without `node`
    expect((err as Error).message).toMatch(/target is local node[^]*the next `pulumi up` replaces it/);
    expect(messages(ctx.lines, "warn")[1]).toMatch(
      /^the half-made VM 145 could not be destroyed: the server refused to destroy VM 145: .*can't lock file/s,
    );
    // learned all the same: the next install goes without `node`
    expect(await nodes.get(h.endpoint)).toBe("pve1");
  });

  test("with this machine's install journal: the retry is a new install, not a takeover of the destroyed one", async () => {
    h = await startHarness(FAST);
    const { nodes, dir } = store();
    const journal = fileJournal(dir);
    const urn = "urn:pulumi:dev::p::goPveQemu:Vm::db";
    const ctx = h.ctx({ serverNodes: nodes, journal, identity: "0123456789abcdef0123456789abcdef", urn });
    const { state } = await create(h.inputs({ name: "db", node: "pve1" }), ctx);
    expect(state).toMatchObject({ node: "pve1", installComplete: true });
    expect(h.sim.vms().map((v) => v.vmid)).toEqual([state.vmid]);
    expect(messages(ctx.lines, "warn").some((m) => m.includes("interrupted create"))).toBe(false);
  });

  test("a create cancelled as the refusal comes destroys nothing and retries nothing", async () => {
    h = await startHarness(FAST);
    const { nodes } = store();
    const cancel = new AbortController();
    // Ctrl-C at the moment the refusal is learned
    const learning: ServerNodes = {
      get: (e) => nodes.get(e),
      learn: async (...a) => (await nodes.learn(...a), cancel.abort()),
    };
    const ctx = h.ctx({ serverNodes: learning, signal: cancel.signal });
    const err = await create(h.inputs({ vmid: 147, node: "pve1" }), ctx).catch((e: unknown) => e);
    // kept in state as it is (the next `up` replaces it, then without `node`)
    expect(err).toMatchObject({ name: "PartialCreateError", state: { vmid: 147, installComplete: false } });
    expect(h.sim.vm(147)).toMatchObject({ node: "pve1", status: "stopped" });
    expect(h.sim.stats().installsStarted).toBe(1);
    expect(messages(ctx.lines, "warn").some((m) => m.includes("Destroying the half-made VM"))).toBe(false);
    expect(await nodes.get(h.endpoint)).toBe("pve1");
  });

  test("without a record of server nodes, the refusal still ends in one retry, not a loop", async () => {
    h = await startHarness(FAST);
    const ctx = h.ctx();
    const { state } = await create(h.inputs({ vmid: 146, node: "pve1" }), ctx);
    expect(state).toMatchObject({ vmid: 146, node: "pve1", installComplete: true });
    expect(h.sim.stats().installsStarted).toBe(2);
  });
});

describe("the record of server nodes", () => {
  test("written once per process and node: the same node again writes nothing, another node is written", async () => {
    const { nodes, dir } = store();
    const at = "http://a:8080";
    // A fleet's installs without `node` all show it at once: one write between them.
    await Promise.all(Array.from({ length: 20 }, () => nodes.learn(at, "pve1", "test")));
    const [file] = fs.readdirSync(dir);
    expect(fs.readdirSync(dir)).toEqual([file]);
    fs.rmSync(path.join(dir, file!));
    await nodes.learn(at, "pve1", "test");
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(await nodes.get(at)).toBe("pve1");
    await nodes.learn(at, "pve2", "test");
    expect(await fileServerNodes(dir).get(at)).toBe("pve2");
    // The next process (the next deployment) writes it again: the record's week starts anew.
    fs.rmSync(path.join(dir, file!));
    await fileServerNodes(dir).learn(at, "pve2", "test");
    expect(await fileServerNodes(dir).get(at)).toBe("pve2");
  });

  test("a write that failed is tried again by the next install that shows the node", async () => {
    const { dir } = store();
    const blocked = path.join(dir, "blocked");
    fs.writeFileSync(blocked, "a file where the folder should be");
    const nodes = fileServerNodes(blocked);
    await expect(nodes.learn("http://a:8080", "pve1", "test")).rejects.toThrow();
    fs.rmSync(blocked);
    await nodes.learn("http://a:8080", "pve1", "test");
    expect(await fileServerNodes(blocked).get("http://a:8080")).toBe("pve1");
  });

  test("a damaged file, or one naming another server, says nothing", async () => {
    const { nodes, dir } = store();
    await nodes.learn("http://a:8080", "pve1", "test");
    const [file] = fs.readdirSync(dir);
    expect(file).toMatch(/^server-[0-9a-f]{32}\.json$/);
    const fresh = (): ServerNodes => fileServerNodes(dir);
    expect(await fresh().get("http://A:8080/")).toBe("pve1");
    fs.writeFileSync(
      path.join(dir, file!),
      JSON.stringify({ endpoint: "http://b:8080", node: "pve9", how: "x", at: 1 }),
    );
    expect(await fresh().get("http://a:8080")).toBeUndefined();
    fs.writeFileSync(path.join(dir, file!), "{not json");
    expect(await fresh().get("http://a:8080")).toBeUndefined();
  });
});
