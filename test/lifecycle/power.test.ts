// shutdownAndWait on a virtual clock against the in-memory server, with the
// default timing: the real server's blocking shutdown (minutes), the older
// "answer at once, stop later" behaviour, a guest that never stops, and a
// server that says the graceful shutdown failed.
import { shutdownAndWait, stopAndWait } from "../../provider/lifecycle/power/power";
import { redactor } from "../../provider/lifecycle/core/redact";
import { setup } from "./fake-setup";
import type { Setup } from "./fake-setup";

const run = (s: Setup) => shutdownAndWait(s.ctx.client({ endpoint: "x" }), 101, "web-101 (101)", s.ctx, redactor([]));

test("the real server's shutdown blocks 5 minutes: with the default timing it succeeds, saying every 30 s that it waits", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "blocking", takesMs: 5 * 60_000 };
  expect(await run(s)).toBe("graceful");
  expect(s.server.count("stop")).toBe(0);
  expect(s.server.vms.get(101)?.running).toBe(false);
  expect(s.lines).toEqual(
    ["30 s", "60 s", "90 s", "2 min", "2.5 min", "3 min", "3.5 min", "4 min", "4.5 min"].map(
      (t) => `info waiting for VM web-101 (101) to shut down (${t})`,
    ),
  );
  // the status check right after the answer is all the confirming needed
  expect(s.clock.elapsed()).toBe(5 * 60_000);
});

test("a shutdown that does not answer within shutdownTimeoutMs is abandoned and the VM stopped hard", async () => {
  const s = setup({ shutdownTimeoutMs: 120_000 });
  s.server.shutdownMode = { mode: "hang" };
  expect(await run(s)).toBe("forced");
  const stop = s.server.calls.find((c) => c.call === "stop");
  expect(stop?.at).toBe(s.clock.start + 120_000);
  expect(s.server.vms.get(101)?.running).toBe(false);
  expect(s.lines.filter((l) => l.startsWith("warn"))).toEqual([
    "warn VM web-101 (101): it did not shut down within 2 min (the shutdown request got no answer); stopping it hard",
  ]);
  expect(s.lines.filter((l) => l.startsWith("info"))).toHaveLength(3); // 30 s, 60 s, 90 s
});

test("older servers answer at once and the VM stops later: watched until stopped, no hard stop", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "immediate", takesMs: 45_000 };
  expect(await run(s)).toBe("graceful");
  expect(s.server.count("stop")).toBe(0);
  expect(s.clock.elapsed()).toBeGreaterThanOrEqual(45_000);
  expect(s.clock.elapsed()).toBeLessThan(45_000 + 2_000 + 1); // one poll interval at most after it stopped
});

test("answered at once but the VM keeps running: a hard stop once the shutdown time is used up", async () => {
  const s = setup({ shutdownTimeoutMs: 60_000 });
  s.server.shutdownMode = { mode: "immediate", takesMs: 1e12 };
  expect(await run(s)).toBe("forced");
  expect(s.server.calls.find((c) => c.call === "stop")?.at).toBe(s.clock.start + 60_000);
  expect(s.lines).toContain(
    "warn VM web-101 (101): it did not shut down within 60 s (status says running); stopping it hard",
  );
});

test("the server says its qm shutdown failed: the command is over, so the hard stop follows at once", async () => {
  for (const afterMs of [130, 180_000]) {
    const s = setup();
    s.server.shutdownMode = {
      mode: "error",
      status: 500,
      afterMs,
      message:
        "failed to shutdown VM: [-] failed to shutdown VM: exit status 255, output: VM quit/powerdown failed - got timeout",
    };
    expect(await run(s)).toBe("forced");
    expect(s.server.count("stop")).toBe(1);
    // the stop was sent right after the answer, not after watching out the shutdown time
    expect(s.server.calls.find((c) => c.call === "stop")?.at).toBe(s.clock.start + afterMs);
    expect(s.clock.elapsed()).toBeLessThan(afterMs + 5_000);
    expect(s.lines.filter((l) => l.startsWith("warn"))).toEqual([
      "warn VM web-101 (101): the server's qm shutdown failed (failed to shutdown VM: [-] failed to shutdown VM: exit status 255, output: VM quit/powerdown failed - got timeout); stopping it hard",
    ]);
  }
});

test("a 5xx that is not the server's own (a proxy's page): nothing sure, the VM is watched for the rest of the time", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "error", status: 502, afterMs: 1_000, message: "<html>502 Bad Gateway</html>" };
  expect(await run(s)).toBe("forced");
  expect(s.lines.filter((l) => l.startsWith("warn"))).toEqual([
    "warn VM web-101 (101): the shutdown request failed (POST /api/vm/101/shutdown (VM 101) answered HTTP 502: <html>502 Bad Gateway</html>); watching whether the VM stops anyway",
    "warn VM web-101 (101): it did not shut down within 10 min (status says running); stopping it hard",
  ]);
  // the wait for the VM to stop used what was left of the shutdown time, not more
  expect(s.server.calls.find((c) => c.call === "stop")?.at).toBe(s.clock.start + 600_000);
});

test("hard stops forbidden (allowHardStop false): a failed shutdown fails, saying why, and nothing is stopped", async () => {
  const s = setup();
  s.ctx.allowHardStop = false;
  s.server.shutdownMode = {
    mode: "error",
    status: 500,
    afterMs: 130,
    message: "failed to shutdown VM: [-] failed to shutdown VM: exit status 255, output: boom",
  };
  await expect(run(s)).rejects.toMatchObject({
    code: "GPQ_SHUTDOWN_FAILED",
    message: expect.stringMatching(
      /^could not shut down VM web-101 \(101\): the server's qm shutdown failed .*boom\); it is not stopped hard because goPveQemu:allowHardStop is false/,
    ),
  });
  expect(s.server.count("stop")).toBe(0);
  const hung = setup({ shutdownTimeoutMs: 60_000 });
  hung.ctx.allowHardStop = false;
  hung.server.shutdownMode = { mode: "hang" };
  await expect(run(hung)).rejects.toMatchObject({ code: "GPQ_SHUTDOWN_FAILED" });
  expect(hung.server.count("stop")).toBe(0);
});

test("a VM that is already stopped: the refusal means done", async () => {
  const s = setup();
  s.server.vms.get(101)!.running = false;
  expect(await run(s)).toBe("already");
  expect(s.server.count("stop")).toBe(0);
});

test("a definite refusal (4xx) is an error, not a reason to stop hard", async () => {
  const s = setup();
  s.server.shutdownMode = { mode: "error", status: 403, message: "this IP is not allowed to perform this action" };
  await expect(run(s)).rejects.toThrow(
    "could not shut down VM web-101 (101): POST /api/vm/101/shutdown (VM 101) answered HTTP 403: this IP is not allowed to perform this action",
  );
  expect(s.server.count("stop")).toBe(0);
});

test("cancelled while the shutdown blocks: rethrown at once, no hard stop", async () => {
  const ac = new AbortController();
  const s = setup({}, ac.signal);
  s.server.shutdownMode = { mode: "hang" };
  void s.clock.after(70_000).then(() => ac.abort());
  await expect(run(s)).rejects.toThrow(/cancelled/);
  expect(s.server.count("stop")).toBe(0);
  expect(s.clock.elapsed()).toBe(70_000);
});

test("after an abandoned shutdown the stop may fail on the VM's lock: it is asked again until it works", async () => {
  const s = setup({ shutdownTimeoutMs: 60_000 });
  s.server.shutdownMode = { mode: "hang" };
  const locked = {
    status: 500,
    message:
      "failed to stop VM: [-] failed to stop VM: exit status 255, output: can't lock file '/var/lock/qemu-server/lock-101.conf' - got timeout",
  };
  s.server.stopFailures.push(locked, locked);
  expect(await run(s)).toBe("forced");
  expect(s.server.count("stop")).toBe(3);
  expect(s.server.vms.get(101)?.running).toBe(false);
});

test("a stop refused with a 4xx is final: an error at once", async () => {
  const s = setup({ shutdownTimeoutMs: 60_000 });
  s.server.shutdownMode = { mode: "hang" };
  s.server.stopFailures.push({ status: 403, message: "this IP is not allowed to perform this action" });
  await expect(run(s)).rejects.toThrow(
    "could not stop VM web-101 (101): POST /api/vm/101/stop (VM 101) answered HTTP 403: this IP is not allowed to perform this action",
  );
  expect(s.server.count("stop")).toBe(1);
});

test("a stop that keeps failing: an error quoting the last answer once stopTimeoutMs has passed", async () => {
  const s = setup({ shutdownTimeoutMs: 60_000, stopTimeoutMs: 10_000 });
  s.server.shutdownMode = { mode: "hang" };
  for (let i = 0; i < 20; i++) s.server.stopFailures.push({ status: 500, message: `lock timeout ${i}` });
  await expect(run(s)).rejects.toThrow(/^could not stop VM web-101 \(101\): .*answered HTTP 500: lock timeout 5$/);
  expect(s.server.count("stop")).toBe(6); // at 0, 2, 4, 6, 8 and 10 s
});

test("stopAndWait: a VM that stopped meanwhile is fine; one that never reads stopped is an error", async () => {
  const s = setup({ stopTimeoutMs: 10_000 });
  s.server.vms.get(101)!.running = false;
  await stopAndWait(s.ctx.client({ endpoint: "x" }), 101, "web-101 (101)", s.ctx, redactor([]));
  // a VM that is listed as running on another node after the stop (status not readable)
  const t = setup({ stopTimeoutMs: 10_000 });
  const client = t.ctx.client({ endpoint: "x" });
  client.stop = async () => undefined; // the server says ok, the VM runs on
  await expect(stopAndWait(client, 101, "web-101 (101)", t.ctx, redactor([]))).rejects.toThrow(
    "VM web-101 (101) was stopped but status still says running after 10 s",
  );
});
