// The per-operation decision: success needs close, no error, no bare message and
// the completion mark; otherwise the strongest evidence names the failure shape.
import { OperationOutcome } from "../../provider/client/stream/outcome";
import type { Outcome, StreamEnd } from "../../provider/client/stream/verdict";
import type { StepEvent } from "../../provider/client/schemas";
import type { InstallFacts, OperationEvent, OperationKind } from "../../provider/client/stream/types";

const S = (step: string, status: StepEvent["status"], message: string): OperationEvent => ({
  kind: "step",
  step,
  status,
  message,
});
const CLOSE: OperationEvent = { kind: "close" };
const EOF: StreamEnd = { kind: "eof" };

function decide(kind: OperationKind, events: OperationEvent[], end: StreamEnd = EOF, requestName?: string) {
  const facts: InstallFacts[] = [];
  const o = new OperationOutcome(kind, { requestName, onFacts: (f) => facts.push(f) });
  for (const e of events) o.observe(e);
  return { outcome: o.finish(end), facts };
}

function failure(o: Outcome) {
  if (o.ok) throw new Error("expected a failure, got success");
  return o.failure;
}

const SSH_MISSING = "[-] failed to check user SSH key: failed to find user SSH public key";

const INSTALL_HEAD = [
  S("", "processing", "[*] start VM installation"),
  S("preparation > checking VMID", "success", "[+] auto-assigned VMID: 101 (0.02s)"),
  S("preparation > assigning IP", "success", "[+] assigned IP: 192.168.0.101/24 (0.00s)"),
];
const INSTALL_SSH_FRESH = [
  S("SSH preparation > checking SSH key", "processing", "[*] SSH preparation"),
  S("SSH preparation > checking SSH key", "error", SSH_MISSING),
  S("SSH preparation > creating SSH key", "processing", "[*] create SSH key"),
  S("SSH preparation > creating SSH key", "success", "[+] successfully created SSH key pair (0.31s)"),
];
const INSTALL_CREATE = [
  S("VM creation > creating VM", "processing", "[*] VM creation"),
  S("VM creation > creating VM", "success", "[+] VM created successfully (1.92s)"),
];
const INSTALL_DONE = [
  S("VM initialization > finalizing", "success", "[+] VM is ready (0.52s)"),
  S("VM initialization > finalizing", "success", "[+] VM installation completed in 67.83s"),
  S("VM initialization > finalizing", "success", "[*] VMID: 101"),
  S("VM initialization > finalizing", "success", "[*] IP: 192.168.0.101"),
  S("VM initialization > finalizing", "success", "[*] User: deploy"),
];

describe("install", () => {
  test("success needs close, the completed line and the final VMID and IP lines", () => {
    const all = [...INSTALL_HEAD, ...INSTALL_CREATE, ...INSTALL_DONE, CLOSE];
    const { outcome } = decide("install", all, EOF, "web");
    expect(outcome).toMatchObject({
      ok: true,
      value: {
        kind: "install",
        warnings: [],
        facts: {
          vmid: 101,
          ip: "192.168.0.101",
          user: "deploy",
          realName: "web-101",
          completed: true,
          vmCreated: true,
        },
      },
    });
    // drop any one part of the mark: not a success any more
    for (const missing of [CLOSE, INSTALL_DONE[1]!, INSTALL_DONE[2]!, INSTALL_DONE[3]!]) {
      const f = failure(
        decide(
          "install",
          all.filter((e) => e !== missing),
        ).outcome,
      );
      expect(f.shape).toBe(missing === CLOSE ? "connection-lost" : "no-completion");
    }
    // the User line is not part of the mark
    expect(
      decide(
        "install",
        all.filter((e) => e !== INSTALL_DONE[4]),
      ).outcome.ok,
    ).toBe(true);
  });

  test("the SSH-key error is a warning when the key was created and the install completed", () => {
    const { outcome } = decide("install", [
      ...INSTALL_HEAD,
      ...INSTALL_SSH_FRESH,
      ...INSTALL_CREATE,
      ...INSTALL_DONE,
      CLOSE,
    ]);
    expect(outcome.ok).toBe(true);
    if (outcome.ok)
      expect(outcome.value.warnings).toEqual([{ step: "SSH preparation > checking SSH key", message: SSH_MISSING }]);
  });

  test("the SSH-key error without the creating-SSH-key success is the failure, even with a completed install", () => {
    const noRecovery = INSTALL_SSH_FRESH.filter((e) => !(e.kind === "step" && e.status === "success"));
    const f = failure(
      decide("install", [...INSTALL_HEAD, ...noRecovery, ...INSTALL_CREATE, ...INSTALL_DONE, CLOSE]).outcome,
    );
    expect(f).toMatchObject({
      shape: "error-event",
      serverMessage: SSH_MISSING,
      step: "SSH preparation > checking SSH key",
      warnings: [],
    });
  });

  test("a silent close after SSH initialization succeeded is the failed qm reboot, named as that step", () => {
    const sshDone = S("VM initialization > SSH initialization", "success", "[+] SSH initialization completed (35.12s)");
    const f = failure(decide("install", [...INSTALL_HEAD, ...INSTALL_CREATE, sshDone, CLOSE]).outcome);
    expect([f.shape, f.step]).toEqual(["no-completion", "VM initialization > rebooting VM"]);
    // Still in SSH initialization (its output) when it closed: that step, not the reboot.
    const midway = S("SSH initialization", "processing", "  upgrading packages");
    const g = failure(decide("install", [...INSTALL_HEAD, ...INSTALL_CREATE, midway, CLOSE]).outcome);
    expect(g.step).toBe("SSH initialization");
    // A lost stream at the same point was lost there, not in the reboot.
    const h = failure(decide("install", [...INSTALL_HEAD, ...INSTALL_CREATE, sshDone]).outcome);
    expect([h.shape, h.step]).toEqual(["connection-lost", "VM initialization > SSH initialization"]);
  });

  test("a recovered SSH-key error on an install that then fails is no warning; the later failure is reported", () => {
    const f = failure(decide("install", [...INSTALL_HEAD, ...INSTALL_SSH_FRESH, ...INSTALL_CREATE, CLOSE]).outcome);
    expect(f).toMatchObject({ shape: "no-completion", warnings: [], step: "VM creation > creating VM" });
    const g = failure(
      decide("install", [
        ...INSTALL_HEAD,
        ...INSTALL_SSH_FRESH,
        S("VM creation > creating VM", "error", "[-] failed to create VM: boom"),
        CLOSE,
      ]).outcome,
    );
    expect(g).toMatchObject({ shape: "error-event", serverMessage: "[-] failed to create VM: boom", warnings: [] });
  });

  test("the same SSH message at another step, or in another operation, is an ordinary error", () => {
    const f = failure(
      decide("install", [
        ...INSTALL_HEAD,
        S("SSH preparation > creating SSH key", "error", SSH_MISSING),
        ...INSTALL_DONE,
        CLOSE,
      ]).outcome,
    );
    expect(f.shape).toBe("error-event");
    const g = failure(
      decide("start", [
        S("SSH preparation > checking SSH key", "error", SSH_MISSING),
        S("SSH preparation > creating SSH key", "success", "[+] ok"),
        S("finalizing", "info", "[+] VM started successfully"),
        CLOSE,
      ]).outcome,
    );
    expect(g.shape).toBe("error-event");
  });

  test("facts are read as they appear and reported on each change", () => {
    const events = [
      S("", "processing", "[*] start VM installation"),
      S("preparation > checking VMID", "processing", "[*] using specified VMID: 150 (0.00s)"),
      S("preparation > assigning IP", "success", "[+] assigned IP: 10.1.2.150/24 (0.00s)"),
      S("preparation > validating CPU and RAM", "processing", "[*] setting CPU to maximum 4"),
      S("preparation > validating CPU and RAM", "processing", "[*] setting RAM to maximum 8192"),
      S("preparation > validating disk size", "processing", "[*] setting disk to maximum 100G"),
      S("VM creation > creating VM", "processing", "[*] VM creation"),
    ];
    const { facts, outcome } = decide("install", events);
    expect(facts.map((f) => Object.keys(f).filter((k) => f[k as keyof InstallFacts] !== undefined).length)).toEqual([
      5, 6, 7, 8, 9,
    ]);
    expect(facts.at(-1)).toEqual({
      vmid: 150,
      autoAssigned: false,
      realName: "150",
      ip: "10.1.2.150",
      cpu: 4,
      memoryMb: 8192,
      diskGb: 100,
      vmCreated: false,
      completed: false,
    });
    expect(failure(outcome)).toMatchObject({ shape: "connection-lost", facts: { vmid: 150, vmCreated: false } });
  });

  test("the minimum clamps are facts too", () => {
    const { facts } = decide("install", [
      S("preparation > validating CPU and RAM", "processing", "[*] setting CPU to minimum 1"),
      S(
        "preparation > validating CPU and RAM",
        "processing",
        "[*] setting RAM to minimum 512 for ensure system stability",
      ),
      S("preparation > validating disk size", "processing", "[*] setting disk to minimum 16G"),
    ]);
    expect(facts.at(-1)).toMatchObject({ cpu: 1, memoryMb: 512, diskGb: 16 });
  });

  test("vmCreated: only after creating VM succeeded or a later step appeared", () => {
    const created = (events: OperationEvent[]) => decide("install", events).facts.at(-1)?.vmCreated ?? false;
    expect(created([S("VM creation > creating VM", "processing", "[*] VM creation")])).toBe(false);
    expect(created([S("VM creation > creating VM", "error", "[-] failed to create VM: exists")])).toBe(false);
    expect(created([S("VM creation > creating VM", "success", "[+] VM created successfully (1.92s)")])).toBe(true);
    expect(created([S("VM creation > importing disk image", "processing", "[*] import disk image")])).toBe(true);
    expect(created([S("migrating", "processing", "  2025 starting migration")])).toBe(true);
    expect(created([S("SSH initialization", "processing", "  Hit:1 ...")])).toBe(true);
    expect(created([S("VM initialization > waiting for ready", "success", "[*] VM strting")])).toBe(true);
  });

  test("onFacts is not called when nothing changed", () => {
    const { facts } = decide("install", [
      ...INSTALL_HEAD,
      ...INSTALL_HEAD,
      S("OS preparation > downloading OS image", "processing", "  [*] VMID: 999 is just output"),
    ]);
    expect(facts).toHaveLength(2); // VMID (+realName, autoAssigned) once, IP once
  });
});

describe("start and reboot", () => {
  const ok = [
    S("starting VM", "info", "[*] starting VM"),
    S("starting VM", "success", "[+] VM starting (0.85s)"),
    S("waiting for SSH", "success", "[+] VM is ready (12.40s)"),
    S("finalizing", "info", "[+] VM started successfully"),
    CLOSE,
  ];

  test("success needs the final info event and close", () => {
    expect(decide("start", ok).outcome.ok).toBe(true);
    expect(decide("reboot", ok).outcome.ok).toBe(true);
    expect(failure(decide("start", ok.slice(0, 3).concat(CLOSE)).outcome).shape).toBe("no-completion");
    expect(failure(decide("start", ok.slice(0, 4)).outcome).shape).toBe("connection-lost");
  });

  test("the first `[*] starting VM` info is no completion mark, a `[-]` info is none either", () => {
    expect(failure(decide("start", [ok[0]!, CLOSE]).outcome).shape).toBe("no-completion");
    const f = failure(
      decide("reboot", [S("waiting for SSH", "info", "[-] failed to get OS user: OS user not found"), CLOSE]).outcome,
    );
    expect(f).toMatchObject({ shape: "no-completion", serverMessage: "[-] failed to get OS user: OS user not found" });
  });

  test("an error event wins over a later bare message and over a later completion", () => {
    const f = failure(
      decide("start", [
        S("starting VM", "error", "[-] failed to start VM: exit status 255"),
        { kind: "bare", message: "failed to start VM: x" },
      ]).outcome,
    );
    expect(f).toMatchObject({
      shape: "error-event",
      serverMessage: "[-] failed to start VM: exit status 255",
      step: "starting VM",
    });
    expect(failure(decide("start", [S("waiting for SSH", "error", "[-] timeout"), ...ok]).outcome).shape).toBe(
      "error-event",
    );
  });

  test("a bare message fails the operation even if close follows", () => {
    expect(failure(decide("start", [{ kind: "bare", message: "VM is running" }, ...ok]).outcome)).toMatchObject({
      shape: "bare-message",
      serverMessage: "VM is running",
    });
  });

  test("a broken-JSON error event counts through its recovered template", () => {
    const raw: OperationEvent = {
      kind: "raw",
      text: '{"step":"starting VM","status":"error","message":"[-] "quoted" failure"}',
      recovered: { kind: "step", step: "starting VM", status: "error", message: '[-] "quoted" failure' },
    };
    expect(failure(decide("start", [raw, ...ok]).outcome)).toMatchObject({
      shape: "error-event",
      serverMessage: '[-] "quoted" failure',
    });
  });

  test("an `event: error` frame fails the operation at the step it had reached, with the frame's words", () => {
    const data = '{"error":{"code":"x","message":"operation failed"}}';
    const f = failure(decide("start", [ok[0]!, { kind: "other", event: "error", data }, ...ok.slice(1)]).outcome);
    expect(f).toMatchObject({
      shape: "error-event",
      frame: "error",
      step: "starting VM",
      serverMessage: `in-band "error" frame of the stream: operation failed (data: ${data})`,
    });
    // with close after it, as the seeds' services end a failed operation
    const closed = failure(decide("start", [ok[0]!, { kind: "other", event: "error", data }, CLOSE]).outcome);
    expect(closed).toMatchObject({ shape: "error-event", frame: "error" });
    const plain = failure(decide("start", [{ kind: "other", event: "error", data: "plain words" }]).outcome);
    expect(plain.serverMessage).toBe('in-band "error" frame of the stream: plain words');
    const huge = failure(decide("start", [{ kind: "other", event: "error", data: "x".repeat(2_000) }]).outcome);
    expect(huge.serverMessage).toBe(`in-band "error" frame of the stream: ${"x".repeat(500)}… [1500 more chars]`);
  });

  test("an `sse_error` frame is the stream's failure: no verdict on the operation, unless its completion still came", () => {
    const data = '{"error":{"code":"stream_failed","message":"buffer overflow"}}';
    const frame: OperationEvent = { kind: "other", event: "sse_error", data };
    const cut = failure(decide("start", [ok[0]!, frame]).outcome);
    expect(cut).toMatchObject({ shape: "stream-error", frame: "sse_error", step: "starting VM" });
    expect(cut.serverMessage).toBe(`in-band "sse_error" frame of the stream: buffer overflow (data: ${data})`);
    // closed without the completion: still the stream's failure, not "no completion"
    expect(failure(decide("start", [ok[0]!, frame, CLOSE]).outcome).shape).toBe("stream-error");
    // the operation's own completion came after it: it succeeded
    expect(decide("start", [ok[0]!, frame, ...ok.slice(1)]).outcome.ok).toBe(true);
    // a step's error after it is the operation's failure
    const both = failure(decide("start", [frame, S("starting VM", "error", "[-] failed to start VM")]).outcome);
    expect([both.shape, both.serverMessage]).toEqual(["error-event", "[-] failed to start VM"]);
  });

  test("a step's own error event still names its step, even after an in-band frame", () => {
    const f = failure(
      decide("start", [
        S("starting VM", "error", "[-] failed to start VM"),
        { kind: "other", event: "error", data: "later" },
      ]).outcome,
    );
    expect([f.step, f.serverMessage]).toEqual(["starting VM", "[-] failed to start VM"]);
  });

  test("heartbeats and unknown events change nothing", () => {
    const noisy = ok.flatMap((e) => [e, { kind: "other", event: "heartbeat", data: "{}" } as OperationEvent]);
    expect(decide("start", noisy).outcome.ok).toBe(true);
  });
});

describe("migrate", () => {
  test("close is the completion mark; output lines in between", () => {
    expect(decide("migrate", [S("migrating", "processing", "  starting migration"), CLOSE]).outcome.ok).toBe(true);
    expect(decide("migrate", [CLOSE]).outcome.ok).toBe(true);
    expect(failure(decide("migrate", [S("migrating", "processing", "  starting migration")]).outcome).shape).toBe(
      "connection-lost",
    );
  });
});

describe("client-side ends", () => {
  const partial = [S("starting VM", "info", "[*] starting VM"), S("starting VM", "success", "[+] VM starting (0.85s)")];

  test.each<[StreamEnd, string]>([
    [{ kind: "idle-timeout", afterMs: 100 }, "idle-timeout"],
    [{ kind: "overall-timeout", afterMs: 100 }, "overall-timeout"],
    [{ kind: "aborted" }, "aborted"],
    [{ kind: "broken", detail: "socket hang up" }, "connection-lost"],
    [{ kind: "eof" }, "connection-lost"],
  ])("%j before close -> %s", (end, shape) => {
    // an old problem line in the output is not the server's word on a client-side end
    const f = failure(decide("start", [S("x", "processing", "  Error: earlier noise"), ...partial], end).outcome);
    expect(f).toMatchObject({ shape, step: "starting VM" });
    expect(f.serverMessage).toBe(end.kind === "broken" ? "socket hang up" : undefined);
  });

  test("after close, how the bytes ended does not matter", () => {
    const done = [...partial, S("finalizing", "info", "[+] VM started successfully"), CLOSE];
    for (const end of [
      { kind: "idle-timeout", afterMs: 1 },
      { kind: "aborted" },
      { kind: "broken", detail: "reset" },
    ] as StreamEnd[]) {
      expect(decide("start", done, end).outcome.ok).toBe(true);
      expect(failure(decide("start", [...partial, CLOSE], end).outcome).shape).toBe("no-completion");
    }
  });

  test("an error event seen before a timeout is still the reported cause", () => {
    expect(
      failure(
        decide("start", [S("waiting for SSH", "error", "[-] boom")], { kind: "idle-timeout", afterMs: 5 }).outcome,
      ).shape,
    ).toBe("error-event");
  });

  test("events after close are ignored", () => {
    expect(decide("migrate", [CLOSE, S("migrating", "error", "[-] late")]).outcome.ok).toBe(true);
  });
});

describe("tail", () => {
  test("keeps the last 20 lines, each bounded", () => {
    const o = new OperationOutcome("migrate");
    for (let i = 0; i < 1000; i++) o.observe(S("migrating", "processing", `  line ${i}`));
    o.observe({ kind: "raw", text: "z".repeat(100_000) });
    o.observe(CLOSE);
    const out = o.finish(EOF);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.value.tail).toHaveLength(20);
    expect(out.value.tail[0]).toBe("  line 981");
    expect(out.value.tail[18]).toBe("  line 999");
    expect(out.value.tail[19]!.length).toBeLessThan(4200);
    expect(out.value.tail[19]).toMatch(/^z{4096}… \[95904 more chars\]$/);
  });

  test("the failure's tail shows the output that led there", () => {
    const f = failure(
      decide("migrate", [
        S("migrating", "processing", "  phase 1"),
        { kind: "raw", text: '  ERROR: "disk" missing' },
        { kind: "bare", message: "[-] failed to migrate VM" },
      ]).outcome,
    );
    expect(f.tail).toEqual(["  phase 1", '  ERROR: "disk" missing', "[-] failed to migrate VM"]);
  });
});
