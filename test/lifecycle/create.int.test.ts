// create against the simulator, through the real client: the success path
// (progress, facts, confirmation), clamping, power state, and the failures
// that leave nothing behind.
import { DEFAULT_TIMING, create, diff, update, PartialError } from "../../provider/lifecycle";
import { CODES, LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import { PartialCreateError } from "../../provider/lifecycle/model/partial-error";
import type { LifecycleContext } from "../../provider/lifecycle";
import { SPEED, messages, startHarness } from "./harness";
import type { Harness } from "./harness";
import { simClock } from "./sim-clock";

let h: Harness;
beforeAll(async () => {
  // The install's reboot moment unseen: these follows are decided by the timeline (its rule for a
  // seen reboot has tests of its own, in verdicts.int.test.ts).
  h = await startHarness({
    nodes: ["pve1", "pve2"],
    maxCpu: 8,
    maxRam: 8192,
    maxDisk: 40,
    durations: { rebootStopped: 0 },
  });
});
afterAll(() => h.close());

describe("create: success", () => {
  test("installs, reports step k of n as it goes, confirms, and records the VM", async () => {
    const ctx = h.ctx();
    const { id, state } = await create(h.inputs({ name: "web", cpu: 2, memoryMb: 3000, diskGb: 20 }), ctx);
    const vm = h.sim.vm(Number(id));
    expect(vm).toBeDefined();
    expect(state).toMatchObject({
      vmid: vm!.vmid,
      vmName: `web-${vm!.vmid}`,
      ip: vm!.ip,
      node: "pve1",
      os: "ubuntu",
      version: "24.04",
      user: "ubuntu",
      cpu: 2,
      memoryMb: 3000, // exact, although the list says 2 (GiB)
      diskGb: 20,
      running: true,
      passwordGenerated: true,
      installComplete: true,
      connection: { endpoint: h.endpoint },
      inputs: { os: "ubuntu", version: "24.04", name: "web", cpu: 2, memoryMb: 3000, diskGb: 20 },
    });
    expect(vm!.status).toBe("running");
    // a strong generated password, never the server's default
    expect(state.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(state.password).not.toBe("passwd");

    const info = messages(ctx.lines, "info");
    // the generated password is said once, in the line that starts the install
    expect(info.filter((m) => m.includes("no password given"))).toEqual([
      `installing ubuntu 24.04 on ${h.endpoint} (the server picks the VMID); no password given: ` +
        "a random one was generated (see the secret output `password`)",
    ]);
    expect(info).toContain(
      "install [1/17] preparation > checking VMID: success (0.02s) - auto-assigned VMID: " + vm!.vmid,
    );
    expect(
      info.some((m) =>
        /^install \[11\/17\] VM creation > creating VM: success \(\d+\.\d\ds\) - VM created successfully$/.test(m),
      ),
    ).toBe(true);
    expect(
      info.some((m) =>
        m.startsWith("install [17/17] VM initialization > finalizing: success - VM installation completed in"),
      ),
    ).toBe(true);
    expect(info[info.length - 1]).toBe(`VM web-${vm!.vmid} (${vm!.vmid}) is ready at ${vm!.ip} on node pve1`);
    // processing lines (the init script's output) are debug
    expect(messages(ctx.lines, "debug").some((m) => m.includes("VM initialization > SSH initialization"))).toBe(true);
    // the password never shows in any line
    expect(JSON.stringify(ctx.lines)).not.toContain(state.password!);

    // a second `up` with the same inputs is a no-op
    expect(diff(id, state, h.inputs({ name: "web", cpu: 2, memoryMb: 3000, diskGb: 20 })).changes).toBe(false);
  });

  test("a given password is used; a pinned VMID, node and user are honoured (migration counted as a step)", async () => {
    const ctx = h.ctx();
    const { state } = await create(
      h.inputs({
        vmid: 150,
        node: "pve2",
        user: "deploy",
        password: "Correct-Horse-9",
        sshPublicKey: "ssh-ed25519 AAAAC3Nz me@x",
      }),
      ctx,
    );
    expect(state).toMatchObject({
      vmid: 150,
      vmName: "150",
      node: "pve2",
      user: "deploy",
      password: "Correct-Horse-9",
    });
    expect(state.passwordGenerated).toBeUndefined();
    expect(h.sim.vm(150)).toMatchObject({ node: "pve2", user: "deploy", status: "running" });
    const info = messages(ctx.lines, "info");
    expect(info.some((m) => m.startsWith("install [14/18] VM initialization > migrating VM"))).toBe(true);
    expect(JSON.stringify(ctx.lines)).not.toContain("Correct-Horse-9");
    expect(info.some((m) => m.includes("no password given"))).toBe(false);
  });

  test("running: false installs, then shuts the VM down", async () => {
    const { id, state } = await create(h.inputs({ name: "off", running: false }), h.ctx());
    expect(state.running).toBe(false);
    expect(h.sim.vm(Number(id))?.status).toBe("stopped");
    expect(diff(id, state, h.inputs({ name: "off", running: false })).changes).toBe(false);
  });

  test("clamping: the user is told plainly; desired and actual are both recorded; no endless diff", async () => {
    const ctx = h.ctx();
    const desired = h.inputs({ name: "big", cpu: 16, memoryMb: 16384, diskGb: 100 });
    const { id, state } = await create(desired, ctx);
    expect(state).toMatchObject({
      cpu: 8,
      memoryMb: 8192,
      diskGb: 40,
      inputs: { cpu: 16, memoryMb: 16384, diskGb: 100 },
    });
    expect(state.clamped).toEqual({
      cpu: { requested: 16, limit: 8 },
      memoryMb: { requested: 16384, limit: 8192 },
      diskGb: { requested: 100, limit: 40 },
    });
    const warns = messages(ctx.lines, "warn");
    expect(warns).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^cpu 16 was clamped by the server to 8 \(its VM_MAX_CPU\)/),
        expect.stringMatching(/^memoryMb 16384 was clamped by the server to 8192 \(its VM_MAX_RAM\)/),
        expect.stringMatching(/^diskGb 100 was clamped by the server to 40 \(its VM_MAX_DISK\)/),
      ]),
    );
    expect(h.sim.vm(Number(id))).toMatchObject({ cpu: 8, memoryMb: 8192, diskGb: 40 });
    expect(diff(id, state, desired).changes).toBe(false);
  });
});

describe("create: failures that leave nothing", () => {
  async function failsCleanly(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
    const before = h.sim.vms().map((v) => v.vmid);
    const err = await run().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LifecycleError);
    expect(err).not.toBeInstanceOf(PartialCreateError);
    expect((err as Error).message).toMatch(pattern);
    await h.sim.idle();
    expect(h.sim.vms().map((v) => v.vmid)).toEqual(before);
  }

  test("an unsupported version fails with the server's words", async () => {
    await failsCleanly(
      () => create(h.inputs({ name: "bad", version: "25.04" }), h.ctx()),
      /^the install of VM \d+ failed; nothing is left on the server: install of VM \d+ failed at step "OS preparation > getting OS image" \(the server reported an error\): \[-\] failed to get OS image URL: unsupported Ubuntu Server version: 25\.04/,
    );
  });

  test("a body the server cannot bind: the 400 message", async () => {
    await failsCleanly(
      () => create(h.inputs({ os: "windows" }), h.ctx()),
      /the server refused the install: please check your input:.*\(HTTP 400\); nothing was created/,
    );
  });

  test("the caller's IP is refused: the bare message", async () => {
    h.sim.settings({ allowIps: "10.9.9.9" });
    try {
      await failsCleanly(
        () => create(h.inputs({ name: "refused" }), h.ctx()),
        /this IP is not allowed to perform this action/,
      );
    } finally {
      h.sim.settings({ allowIps: "0.0.0.0" });
    }
  });

  test("a pinned VMID that is taken fails before installing, naming the holder", async () => {
    h.sim.addVm({ vmid: 160, requestedName: "holder", running: true });
    await failsCleanly(
      () => create(h.inputs({ vmid: 160 }), h.ctx()),
      /vmid 160 is already in use on .* by VM "holder-160" \(node pve1\)/,
    );
    h.sim.removeVm(160);
  });

  test("no endpoint anywhere: says the three ways to set one", async () => {
    await expect(create(h.inputs(), h.ctx({ connectionDefaults: {} }))).rejects.toThrow(
      /connection\.endpoint.*goPveQemu:endpoint.*GO_PVE_QEMU_ENDPOINT/,
    );
  });

  test("an unreachable server: a clear error, nothing recorded", async () => {
    const err = await create(h.inputs({ connection: { endpoint: "http://127.0.0.1:1" } }), h.ctx()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LifecycleError);
    expect((err as Error).message).toMatch(
      /could not list the VMs on http:\/\/127\.0\.0\.1:1 before installing \(nothing was created\)/,
    );
  });
});

describe("create: failure after the VM was made", () => {
  test("kept in state (partial), true to the VM, with the server's message", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "waiting for ready", name: "half" });
    const err = await create(h.inputs({ name: "half" }), h.ctx()).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toBeInstanceOf(PartialCreateError);
    const p = err as PartialCreateError;
    const vm = h.sim.vm(Number(p.id));
    expect(vm).toBeDefined();
    expect(p.state).toMatchObject({
      vmid: vm!.vmid,
      vmName: `half-${vm!.vmid}`,
      running: true,
      installComplete: false,
    });
    expect(p.reasons[0]).toMatch(/failed after the VM was created.*SSH timeout/s);
    expect(p.reasons.join("\n")).toMatch(/kept in state/);
    expect(p.state.installProblem).toMatch(/SSH timeout/);
  });

  test("destroyOnCreateFailure: destroyed at once (stopped first), plain error saying so", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "waiting for ready", name: "gone" });
    const ctx = h.ctx();
    const before = h.sim.vms().length;
    const err = await create(h.inputs({ name: "gone", destroyOnCreateFailure: true }), ctx).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toBeInstanceOf(LifecycleError);
    expect((err as Error).message).toMatch(/VM gone-\d+ \(\d+\) was destroyed \(destroyOnCreateFailure\)/);
    expect(h.sim.vms().length).toBe(before);
    expect(messages(ctx.lines, "info").some((m) => /^stopping VM gone-\d+/.test(m))).toBe(true);
  });

  test("completed but not running when confirmed: partial", async () => {
    // The VM is stopped behind our back right after the server reports completion.
    const ctx = h.ctx({ timing: { pollIntervalMs: 10, confirmTimeoutMs: 200 } });
    const info = ctx.reporter.info;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      const m = /finalizing: success - VMID: (\d+)$/.exec(msg);
      if (m) h.sim.mutateVm(Number(m[1]), { status: "stopped" });
    };
    const err = await create(h.inputs({ name: "flaky" }), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialCreateError);
    const p = err as PartialCreateError;
    expect(p.reasons[0]).toBe(
      `the install of VM flaky-${p.id} (${p.id}) completed, but its status is stopped, not running`,
    );
    expect(p.state).toMatchObject({ vmid: Number(p.id), running: false, installComplete: false });
    expect(h.sim.vm(Number(p.id))?.status).toBe("stopped");
  });

  test("cancelled by the caller once the VMID is known: the VM is kept in state, never orphaned", async () => {
    const ac = new AbortController();
    const ctx = h.ctx({ signal: ac.signal });
    const info = ctx.reporter.info;
    ctx.reporter.info = (msg: string) => {
      info(msg);
      if (/creating VM: success/.test(msg)) ac.abort();
    };
    const err = await create(h.inputs({ name: "cancel" }), ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialCreateError);
    const p = err as PartialCreateError;
    expect(p.reasons[0]).toMatch(
      /^the install of VM cancel-\d+ \(\d+\) was cancelled; the server may still be installing it/,
    );
    await h.sim.idle();
    expect(h.sim.vm(Number(p.id))?.name).toBe(`cancel-${p.id}`);
  });

  test("a partial VM is reconciled by the next update, which says how to reinstall it", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "starting VM", name: "recon" });
    const err = await create(h.inputs({ name: "recon" }), h.ctx()).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toBeInstanceOf(PartialCreateError);
    const p = err as PartialCreateError;
    expect(p.state.running).toBe(false);
    const ctx = h.ctx();
    const next = await update(p.id, p.state, h.inputs({ name: "recon" }), ctx);
    expect(next.running).toBe(true);
    expect(h.sim.vm(Number(p.id))?.status).toBe("running");
    expect(messages(ctx.lines, "warn")[0]).toMatch(
      /comes from an install that did not finish .* `pulumi up --replace` reinstalls it/,
    );
  });
});

describe("create: what a lost stream says, in simulated time", () => {
  // Each follow to its verdict (goPveQemu:waitForInstalls): the rules of the timeline at work.
  const TIMING = { ...DEFAULT_TIMING, pollIntervalMs: 5_000, settleWaitMs: Number.POSITIVE_INFINITY };
  const simCtx = (extra: Partial<LifecycleContext> = {}) => h.ctx({ clock: simClock(SPEED), timing: TIMING, ...extra });

  test("the ghost: lost during the VM's start, then the init script fails and the server removes the VM: a clear failure, nothing in state", async () => {
    h.sim.addFault({ kind: "drop", op: "install", step: "waiting for ready", name: "ghost" });
    h.sim.addFault({ kind: "fail", op: "install", step: "SSH initialization", name: "ghost" });
    const ctx = simCtx();
    const before = h.sim.vms().length;
    const err = await create(h.inputs({ name: "ghost" }), ctx).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect(err).not.toBeInstanceOf(PartialError);
    expect((err as Error).message).toMatch(/created the VM and removed it again/);
    await h.sim.idle();
    expect(h.sim.vms().length).toBe(before);
    const lost = messages(ctx.lines, "warn").find((m) => m.startsWith("lost the install stream"));
    expect(lost).toMatch(
      /^lost the install stream at step "VM initialization > initializing configuration" \(the connection ended/,
    );
    expect(lost).not.toMatch(/failed at/);
  });

  test("lost, then the install completes, its reboot unseen: recorded only once the server can no longer remove it, and said so", async () => {
    // The reboot's stopped moment falls between two looks of 5 simulated seconds here: never seen.
    h.sim.addFault({ kind: "drop", op: "install", step: "SSH initialization", name: "late" });
    const clock = simClock(SPEED);
    const ctx = simCtx({ clock });
    const { state } = await create(h.inputs({ name: "late" }), ctx);
    h.sim.clearFaults();
    expect(state).toMatchObject({ running: true, installComplete: true });
    // the SSH wait (10 min) and the init script bound (20 min) had to pass first
    expect(clock.elapsed()).toBeGreaterThan(30 * 60_000);
    expect(
      messages(ctx.lines, "warn").some((m) => /the server can no longer remove it.*recorded as installed/.test(m)),
    ).toBe(true);
  });

  test("the server's refusal fails at once, whatever the status; a proxy's 502 page too: the install never began", async () => {
    h.sim.addFault({ kind: "http", op: "install", status: 500, body: '{"success":false,"message":"no"}', times: 1 });
    const refused = simCtx();
    const err = await create(h.inputs({ vmid: 190 }), refused).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: CODES.installFailed });
    expect((err as Error).message).toMatch(/^the server refused the install: no \(HTTP 500\); nothing was created/);
    expect(messages(refused.lines, "warn").filter((m) => /lost|following/.test(m))).toEqual([]);

    // The same refusal passed on with 200 (a proxy that rewrites the status), a VMID pinned.
    h.sim.addFault({
      kind: "http",
      op: "install",
      status: 200,
      body: '{"success":false,"message":"please check your input"}',
      contentType: "application/json; charset=utf-8",
      times: 1,
    });
    const clock = simClock(SPEED);
    const passedOn = simCtx({ clock });
    const err1 = await create(h.inputs({ vmid: 192 }), passedOn).catch((e: unknown) => e);
    expect((err1 as Error).message).toMatch(
      /^the server refused the install: .*please check your input.*nothing was created/,
    );
    expect(clock.slept()).toBeLessThan(60_000);

    h.sim.addFault({
      kind: "http",
      op: "install",
      status: 502,
      body: "<html>bad gateway</html>",
      contentType: "text/html",
      times: 2,
    });
    for (const vmid of [191, undefined]) {
      const clock2 = simClock(SPEED);
      const proxied = simCtx({ clock: clock2 });
      const err2 = await create(h.inputs({ vmid, name: vmid === undefined ? undefined : "page" }), proxied).catch(
        (e: unknown) => e,
      );
      expect(err2).toMatchObject({ code: CODES.installFailed });
      expect((err2 as Error).message).toMatch(
        /^the install failed: .*bad gateway.* \(HTTP 502\); the server's stream never began .*nothing was created/,
      );
      // one look at the list, no follow (the waits the provider chose, not the machine's load)
      expect(clock2.slept()).toBeLessThan(60_000);
      expect(messages(proxied.lines, "warn").filter((m) => /lost|following/.test(m))).toEqual([]);
    }
  });

  // Chaos campaign, seed 4 round 3 (C2): such a cut once failed at once, the server made the VM anyway,
  // it was in no state, and the next up installed a second one beside it.
  test('a given name, the stream cut at step "checking VMID" (no VMID named): its one new VM is taken in, no second install', async () => {
    h.sim.addFault({ kind: "cut", op: "install", step: "checking VMID", name: "unsure", times: 1 });
    const ctx = simCtx();
    const { id, state } = await create(h.inputs({ name: "unsure" }), ctx);
    expect(state).toMatchObject({ vmid: Number(id), vmName: `unsure-${id}`, installComplete: true });
    await h.sim.idle();
    expect(h.sim.vms().filter((v) => v.name.startsWith("unsure-"))).toMatchObject([{ vmid: Number(id) }]);
    expect(messages(ctx.lines, "warn")).toContainEqual(
      expect.stringMatching(new RegExp(`^VM unsure-${id} \\(${id}\\) is taken as this install's`)),
    );
  });

  test('a given name, the stream lost before the VMID and nothing made within the bound: unknown, never "nothing was made"; `adopt: true` as the way in', async () => {
    h.sim.addFault({ kind: "drop", op: "install", step: "begin", name: "never" });
    h.sim.addFault({ kind: "fail", op: "install", step: "checking storage pool", name: "never" });
    const err = await create(
      h.inputs({ name: "never" }),
      simCtx({ timing: { ...TIMING, followTimeoutMs: 60_000 } }),
    ).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toMatchObject({ code: CODES.installUnknown });
    expect((err as Error).message).toMatch(
      /If the server still creates a VM named never-<vmid>, declare it with its `vmid` and `adopt: true`/,
    );
    expect((err as Error).message).not.toMatch(/nothing was (made|created)/);
    expect((err as Error).message).not.toMatch(/pulumi import/);
    expect(h.sim.vms().filter((v) => v.name.startsWith("never-"))).toEqual([]);
  });

  test("the SSH key error the server recovers from is a warning that says it was recovered", async () => {
    h.sim.settings({ sshKey: false });
    const ctx = simCtx();
    await create(h.inputs({ name: "fresh" }), ctx);
    const warns = messages(ctx.lines, "warn");
    expect(warns.some((m) => /recovered - the server had no SSH key pair .* and created one/.test(m))).toBe(true);
    expect(warns.some((m) => /: error\b/.test(m))).toBe(false);
  });

  test("a 2 MB output line reaches the log cut to 4 KB, saying how much was cut", async () => {
    const huge = "x".repeat(2_000_000);
    h.sim.addFault({ kind: "fail", op: "install", step: "SSH initialization", name: "chatty", output: [huge] });
    const ctx = simCtx();
    await create(h.inputs({ name: "chatty" }), ctx).catch(() => undefined);
    h.sim.clearFaults();
    expect(Math.max(...ctx.lines.map((l) => l.msg.length))).toBeLessThan(4200);
    expect(ctx.lines.some((l) => /… \[\d+ more characters not shown\]/.test(l.msg))).toBe(true);
  });

  test("a failed qm reboot is named as such, not as the step before it", async () => {
    h.sim.addFault({ kind: "fail", op: "install", step: "rebooting VM", name: "boot" });
    const err = await create(h.inputs({ name: "boot" }), simCtx()).catch((e: unknown) => e);
    h.sim.clearFaults();
    expect(err).toBeInstanceOf(PartialError);
    expect((err as PartialError).reasons[0]).toMatch(
      /failed after the VM was created while rebooting the VM \(qm reboot\), after step "VM initialization > SSH initialization"/,
    );
  });
});
