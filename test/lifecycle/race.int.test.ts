// The auto-assigned VMID race: the simulator reproduces it (two installs in
// the gap between the server's pick and `creating VM` get the same VMID).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { create } from "../../provider/lifecycle";
import { fileJournal } from "../../provider/lifecycle/model/journal";
import { LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import type { VmState } from "../../provider/lifecycle";
import { messages, startHarness } from "./harness";

describe("VMID race", () => {
  test("control: twenty raw installs at once collide on this simulator", async () => {
    // The lowest free VMID for every pick: the collision is certain, not up to the probes' timing.
    const h = await startHarness({ vmidPick: "lowest" });
    try {
      const client = h.rawClient();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          client.install({ os: "ubuntu", version: "24.04", name: `raw${i}`, passwd: "pw-123456" }),
        ),
      );
      await h.sim.idle();
      expect(h.sim.stats().vmidCollisions).toBeGreaterThan(0);
      expect(results.filter((r) => r.status === "rejected").length).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  test("twenty creates at once without vmid: zero collisions, twenty distinct running VMs", async () => {
    const h = await startHarness();
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => create(h.inputs({ name: `web${i}` }), h.ctx())),
      );
      await h.sim.idle();
      expect(h.sim.stats().vmidCollisions).toBe(0);
      const ids = results.map((r) => r.state.vmid);
      expect(new Set(ids).size).toBe(20);
      expect(h.sim.vms().length).toBe(20);
      expect(h.sim.vms().every((vm) => vm.status === "running")).toBe(true);
      for (const r of results) expect(h.sim.vm(r.state.vmid)?.name).toBe(r.state.vmName);
      expect(h.orphans(results.map((r) => r.state))).toEqual([]);
    } finally {
      await h.close();
    }
  });

  test("auto and pinned creates mixed: zero collisions", async () => {
    const h = await startHarness();
    try {
      const pinned = [100, 101, 102, 150, 151];
      const runs = [
        ...Array.from({ length: 5 }, (_, i) => create(h.inputs({ name: `a${i}` }), h.ctx())),
        ...pinned.map((vmid) => create(h.inputs({ vmid }), h.ctx())),
      ];
      const settled = await Promise.allSettled(runs);
      await h.sim.idle();
      expect(h.sim.stats().vmidCollisions).toBe(0);
      const states: VmState[] = [];
      for (const s of settled) {
        if (s.status === "fulfilled") states.push(s.value.state);
        else {
          // The only acceptable failure: a pinned VMID an auto install took first, refused before installing.
          expect(s.reason).toBeInstanceOf(LifecycleError);
          expect((s.reason as Error).message).toMatch(/^vmid \d+ is already in use/);
        }
      }
      expect(states.length).toBeGreaterThanOrEqual(7);
      expect(h.orphans(states)).toEqual([]);
      expect(new Set(states.map((s) => s.vmid)).size).toBe(states.length);
    } finally {
      await h.close();
    }
  });

  test("losing the race to another client is retried once, automatically", async () => {
    // The server's own pick (probing) is not the lowest free VMID; these races need a predictable one.
    const h = await startHarness({ vmidPick: "lowest" });
    try {
      // Our install is slow to reach `creating VM` (1 s here: room for a loaded machine, within the stream's
      // idle limit); another client's install overtakes it with the same VMID.
      h.sim.addFault({ kind: "delay", op: "install", step: "creating VM", name: "mine", ms: 2_000_000, times: 1 });
      const ctx = h.ctx();
      const ours = create(h.inputs({ name: "mine" }), ctx);
      while (!messages(ctx.lines).some((m) => m.includes("auto-assigned VMID: 100")))
        await new Promise((r) => setTimeout(r, 2));
      await h.rawClient().install({ os: "ubuntu", version: "24.04", name: "theirs", passwd: "pw-123456" });
      const { state } = await ours;
      await h.sim.idle();
      expect(h.sim.stats().vmidCollisions).toBe(1);
      expect(state.vmid).toBe(101);
      expect(h.sim.vm(100)?.name).toBe("theirs-100");
      expect(messages(ctx.lines, "warn")).toContain(
        'VMID 100 was taken by another VM ("theirs-100") while this install was preparing (the auto-assigned VMID race); the server picks the next free VMID; retrying the install once',
      );
      expect(h.orphans([state, { vmid: 100 } as VmState])).toEqual([]);
    } finally {
      await h.close();
    }
  });

  test("a retry after the race starts clean: its first attempt's journal entry is no interrupted create", async () => {
    // As a deployment runs it: a stack identity, a URN and this machine's journal. The first attempt wrote
    // its VMID (100) to the journal before losing it; the retry must not read that as an install that may
    // still be under way, follow the other client's VM and fail.
    const h = await startHarness({ vmidPick: "lowest" });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-race-journal-"));
    try {
      h.sim.addFault({ kind: "delay", op: "install", step: "creating VM", name: "mine", ms: 2_000_000, times: 1 });
      const urn = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::mine";
      const ctx = h.ctx({ urn, identity: "c0ffee00c0ffee00c0ffee00c0ffee00", journal: fileJournal(dir) });
      const ours = create(h.inputs({ name: "mine" }), ctx);
      while (!messages(ctx.lines).some((m) => m.includes("auto-assigned VMID: 100")))
        await new Promise((r) => setTimeout(r, 2));
      await h.rawClient().install({ os: "ubuntu", version: "24.04", name: "theirs", passwd: "pw-123456" });
      const { state } = await ours;
      await h.sim.idle();
      expect(state).toMatchObject({ vmid: 101, vmName: "mine-101", running: true, installComplete: true });
      expect(h.sim.vm(100)?.name).toBe("theirs-100");
      const warns = messages(ctx.lines, "warn");
      expect(warns.some((m) => m.includes("retrying the install once"))).toBe(true);
      expect(warns.filter((m) => /interrupted create/.test(m))).toEqual([]);
      expect(h.sim.stats().installsStarted).toBe(3); // ours twice, theirs once: the retry installed
      expect(h.orphans([state, { vmid: 100 } as VmState])).toEqual([]);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith(".json"))).toEqual([]); // handed back: no entry left
    } finally {
      await h.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("losing it twice fails plainly, with advice", async () => {
    const h = await startHarness({ vmidPick: "lowest" });
    try {
      h.sim.addFault({ kind: "delay", op: "install", step: "creating VM", name: "mine", ms: 2_000_000, times: 2 });
      const ctx = h.ctx();
      const ours = create(h.inputs({ name: "mine" }), ctx).catch((e: unknown) => e);
      const raw = h.rawClient();
      for (const vmid of [100, 101]) {
        while (!messages(ctx.lines).some((m) => m.includes(`auto-assigned VMID: ${vmid}`)))
          await new Promise((r) => setTimeout(r, 2));
        await raw.install({ os: "ubuntu", version: "24.04", name: `theirs${vmid}`, passwd: "pw-123456" });
      }
      const err = await ours;
      expect(err).toBeInstanceOf(LifecycleError);
      expect((err as Error).message).toMatch(
        /VMID 101 was taken by another VM.*happened again on the retry.*pin a vmid/,
      );
      await h.sim.idle();
      expect(h.sim.vms().map((v) => v.name)).toEqual(["theirs100-100", "theirs101-101"]);
    } finally {
      await h.close();
    }
  });

  test("concurrent first installs on a fresh server (no SSH key pair yet) all succeed", async () => {
    // Each install finds no key pair and tries to create one; all but one fail
    // at `creating SSH key`, before any VM exists, and are retried once.
    const h = await startHarness({ sshKey: false });
    try {
      // Hold each install for 1 s between finding no key pair and creating one,
      // so that all four have looked before the first creates it.
      h.sim.addFault({ kind: "delay", op: "install", step: "creating SSH key", ms: 2_000_000, times: 4 });
      const ctx = h.ctx();
      const results = await Promise.allSettled([130, 131, 132, 133].map((vmid) => create(h.inputs({ vmid }), ctx)));
      const states = results.map((r) => (r.status === "fulfilled" ? r.value.state : undefined));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);
      expect(h.sim.vms().map((v) => v.vmid)).toEqual([130, 131, 132, 133]);
      expect(h.orphans(states)).toEqual([]);
      const retries = messages(ctx.lines, "warn").filter((m) => m.includes("could not create its SSH key pair"));
      expect(retries).toHaveLength(3);
      expect(h.sim.stats().installsFailed).toBe(3);
    } finally {
      await h.close();
    }
  });
});
