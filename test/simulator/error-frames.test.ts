// Named error frames, as proxies and other SSE services write them (never
// go-pve-qemu itself): `event: <event>` / `data: <body>` at a step, then
// close, end or the rest of the stream; the operation stops there (event
// `error`) or goes on (any other event), unless `flow` says otherwise.
// Whether a flow went on is read from a later step's one-shot delay rule:
// a flow that reaches that step uses it up.
import { CLOSE, ev, frames, request, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"], durationsZero: true };
const ERROR_FRAME = 'event: error\ndata: {"message":"operation failed"}';
const install = (url: string) => request(url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 101 } });

describe("install", () => {
  test("defaults: `event: error`, then close; the install stops there and leaves the VM as it is", async () => {
    const sim = await start({
      ...FAST,
      faults: [
        { op: "install", step: "importing disk image", kind: "error-frame" },
        { op: "install", step: "initializing configuration", kind: "delay", ms: 0, times: 1 },
      ],
    });
    const r = await install(sim.url);
    expect(r.complete).toBe(true);
    expect(frames(r.body).slice(-3)).toEqual([
      ev("VM creation > creating VM", "success", "[+] VM created successfully (0.00s)"),
      ERROR_FRAME,
      CLOSE,
    ]);
    expect(r.body.endsWith(`${ERROR_FRAME}\n\n${CLOSE}\n\n`)).toBe(true);
    await sim.idle();
    // Created, never imported or initialised, and not cleaned up either.
    expect(sim.vm(101)).toMatchObject({ os: "", diskGb: 0, running: false });
    expect(sim.faults().map((f) => f.kind)).toEqual(["error-frame", "delay"]);
    expect(sim.stats()).toMatchObject({ installsFailed: 1, installsSucceeded: 0 });
    expect(sim.installs()[0]?.outcome).toBe("error");
  });

  test("`sse_error`, then continue: the frame sits mid-stream and the install goes on to completion", async () => {
    const sim = await start({
      ...FAST,
      faults: [
        { op: "install", step: "SSH initialization", kind: "error-frame", event: "sse_error", then: "continue" },
      ],
    });
    const r = await install(sim.url);
    const all = frames(r.body);
    const at = all.indexOf('event: sse_error\ndata: {"message":"operation failed"}');
    expect(all.slice(at - 1, at + 2)).toEqual([
      ev("VM initialization > waiting for ready", "success", "[*] VM strting"),
      'event: sse_error\ndata: {"message":"operation failed"}',
      ev("VM initialization > SSH initialization", "processing", "[*] SSH initialization"),
    ]);
    expect(all.at(-1)).toBe(CLOSE);
    expect(r.body).toContain("[+] VM installation completed in");
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("`sse_error`, then close: the client's stream is over, the install carries on unheard", async () => {
    const sim = await start({
      ...FAST,
      durations: { sshInit: 100_000 },
      faults: [
        { op: "install", step: "SSH initialization", kind: "error-frame", event: "sse_error" },
        { op: "install", step: "rebooting VM", kind: "delay", ms: 0, times: 1 },
      ],
    });
    const r = await install(sim.url);
    expect(frames(r.body).slice(-2)).toEqual(['event: sse_error\ndata: {"message":"operation failed"}', CLOSE]);
    expect(r.body).not.toContain("[*] SSH initialization");
    expect(sim.installs()[0]?.outcome).toBeNull();
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(true);
    expect(sim.installs()[0]?.outcome).toBe("completed");
    expect(sim.faults().map((f) => f.kind)).toEqual(["error-frame"]);
  });
});

describe("start, reboot, set/node", () => {
  test("then end: the response ends after the frame, no close; start stops with the VM running", async () => {
    const sim = await start({
      durationsZero: true,
      vms: [{ vmid: 101 }],
      faults: [
        { op: "start", step: "waiting for SSH", kind: "error-frame", then: "end" },
        { op: "start", step: "finalizing", kind: "delay", ms: 0, times: 1 },
      ],
    });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect([r.status, r.headers["content-type"], r.complete]).toEqual([200, "text/event-stream", true]);
    expect(r.body).toBe(`${ev("starting VM", "success", "[+] VM starting (0.00s)")}\n\n${ERROR_FRAME}\n\n`);
    await sim.idle();
    expect(sim.vm(101)?.running).toBe(true);
    expect(sim.faults().map((f) => f.kind)).toEqual(["error-frame", "delay"]);
  });

  test("a custom event and body; flow stops on demand even for another event name", async () => {
    const sim = await start({
      durationsZero: true,
      vms: [{ vmid: 101, running: true }],
      faults: [
        {
          op: "reboot",
          step: "finalizing",
          kind: "error-frame",
          event: "failed",
          body: '{"error":"quota exceeded"}',
          flow: "stops",
        },
      ],
    });
    const r = await request(sim.url, "POST", "/api/vm/101/reboot");
    expect(frames(r.body).slice(-3)).toEqual([
      ev("waiting for SSH", "success", "[+] VM is ready (0.00s)"),
      'event: failed\ndata: {"error":"quota exceeded"}',
      CLOSE,
    ]);
  });

  test("set/node: `event: error` at migrating stops the migration; flow continues lets it happen", async () => {
    const sim = await start({ durationsZero: true, vms: [{ vmid: 101 }, { vmid: 102 }] });
    sim.addFault({ op: "setNode", vmid: 101, step: "migrating", kind: "error-frame" });
    sim.addFault({ op: "setNode", vmid: 102, step: "migrating", kind: "error-frame", flow: "continues" });
    const stopped = await request(sim.url, "POST", "/api/vm/101/set/node", { body: { node: "pve2" } });
    const unheard = await request(sim.url, "POST", "/api/vm/102/set/node", { body: { node: "pve2" } });
    expect(stopped.body).toBe(`${ERROR_FRAME}\n\n${CLOSE}\n\n`);
    expect(unheard.body).toBe(`${ERROR_FRAME}\n\n${CLOSE}\n\n`);
    await sim.idle();
    expect([sim.vm(101)?.node, sim.vm(102)?.node]).toEqual(["pve1", "pve2"]);
  });

  test("error and then continue with flow continues: the operation is heard to its end", async () => {
    const sim = await start({
      durationsZero: true,
      vms: [{ vmid: 101 }],
      faults: [{ op: "start", step: "waiting for SSH", kind: "error-frame", then: "continue", flow: "continues" }],
    });
    const r = await request(sim.url, "POST", "/api/vm/101/start");
    expect(frames(r.body)).toEqual([
      ev("starting VM", "success", "[+] VM starting (0.00s)"),
      ERROR_FRAME,
      ev("waiting for SSH", "success", "[+] VM is ready (0.00s)"),
      ev("finalizing", "info", "[+] VM started successfully"),
      CLOSE,
    ]);
  });
});
