// Stream corruption as the real server produces it (recordings/upstream):
// bytes outside the chunked framing, a cut mid-frame, frames after
// `event: close`, lost and reordered frames - at any step of install, start,
// reboot and set/node, for one VM or all. Whatever happens to the stream, the
// operation carries on server-side. Assertions are on exact bytes and on
// order; "nothing more came" is checked against a later request's answer, not
// a wall-clock wait.
import { CLOSE, ev, open, request, useSimulators, UBUNTU } from "./helpers";
import { chunk, FRAGMENT_OFFSET, rawBody, rawRequest, type RawConnection } from "./raw";

const start = useSimulators();
const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"], durations: { sshTimeout: 60_000 } };
const frame = (step: string, status: string, message: string): string => ev(step, status, message) + "\n\n";
const CLOSE_FRAME = CLOSE + "\n\n";

/** A request on another connection has been answered, and still nothing more arrived on `conn`. */
async function nothingMore(base: string, conn: RawConnection): Promise<void> {
  const before = conn.text();
  expect((await request(base, "GET", "/api/health")).body).toBe("ok");
  expect(conn.text()).toBe(before);
  expect(conn.ended).toBe(false);
}

function chunks(body: string): { chunks: string[]; rest: string } {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf("\r\n", at);
    if (eol === -1) break;
    const size = /^[0-9a-f]+$/.exec(body.slice(at, eol));
    if (!size) break;
    const n = parseInt(size[0], 16);
    if (body.slice(eol + 2 + n, eol + 4 + n) !== "\r\n") break;
    out.push(body.slice(eol + 2, eol + 2 + n));
    at = eol + 4 + n;
    if (n === 0) break;
  }
  return { chunks: out, rest: body.slice(at) };
}

describe("garble: broken chunk framing, then the response never ends", () => {
  test("fragment in a set/node stream: a frame's tail with no chunk header; the migration still happens", async () => {
    const sim = await start({
      vms: [{ vmid: 170 }],
      faults: [{ op: "setNode", step: "migrating", kind: "garble", skip: 1 }],
    });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/170/set/node", { node: "pve2" });
    await conn.waitFor('\r\nrating","status"');
    await sim.idle();
    const { chunks: good, rest } = chunks(rawBody(conn.text()));
    expect(good).toHaveLength(2);
    expect(good.every((c) => c.startsWith('data: {"step":"migrating","status":"processing"'))).toBe(true);
    // As set-node-broken-chunk-framing-a.raw: `rating","status":...` right after the last good chunk.
    expect(rest).toBe(good[1]!.slice(FRAGMENT_OFFSET) + "\r\n");
    expect(rest.startsWith('rating","status":"processing"')).toBe(true);
    await nothingMore(sim.url, conn);
    expect(sim.vm(170)?.node).toBe("pve2");
    expect(sim.stats().streamsCorrupted).toBe(1);
    conn.destroy();
  });

  test("duplicate in an install's SSH initialization: the frame again outside the framing; the install completes", async () => {
    const sim = await start({
      ...FAST,
      faults: [{ op: "install", step: "SSH initialization", kind: "garble", variant: "duplicate" }],
    });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 172 });
    await conn.waitFor('"}\n\n\r\n\r\ndata: {"step":"VM initialization > SSH initialization"');
    await sim.idle();
    const { chunks: good, rest } = chunks(rawBody(conn.text()));
    const last = frame("VM initialization > SSH initialization", "processing", "[*] SSH initialization");
    expect(good[good.length - 1]).toBe(last);
    // As install-chatty-init-broken-framing.raw.
    expect(rest).toBe(`\r\n${last}\r\n`);
    await nothingMore(sim.url, conn);
    expect(sim.vm(172)).toMatchObject({ running: true, os: "ubuntu" });
    expect(sim.stats()).toMatchObject({ installsSucceeded: 1, streamsCorrupted: 1 });
    conn.destroy();
  });

  test("hidden, in an install's SSH initialization: nothing after that frame reaches the client; the install goes on, its reboot included, and the response's end is a break", async () => {
    const sim = await start({
      ...FAST,
      faults: [{ op: "install", step: "SSH initialization", kind: "garble", variant: "hidden" }],
    });
    const s = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 173 } });
    const r = await s.done;
    expect(r.complete).toBe(false);
    expect(r.body).toContain('"message":"[*] SSH initialization"');
    expect(r.body).not.toContain("SSH initialization completed");
    expect(r.body).not.toContain("event: close");
    expect(sim.vm(173)).toMatchObject({ running: true, os: "ubuntu" });
    expect(sim.stats()).toMatchObject({ installsSucceeded: 1, streamsCorrupted: 1 });
  });

  test("crlf: a chunk without the LF of its CRLF, the frame again, and the stream goes on to its close", async () => {
    const sim = await start({
      vms: [{ vmid: 101 }],
      faults: [{ op: "start", step: "waiting for SSH", kind: "garble", variant: "crlf" }],
    });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/101/start");
    await conn.waitFor("\r\n0\r\n\r\n");
    const ready = frame("waiting for SSH", "success", "[+] VM is ready (35.00s)");
    const body = rawBody(conn.text());
    expect(body).toContain(`${Buffer.byteLength(ready).toString(16)}\r\n${ready}\r${chunk(ready)}`);
    expect(body.endsWith(chunk(CLOSE_FRAME) + "0\r\n\r\n")).toBe(true);
    conn.destroy();
  });

  test("at close: the close frame as a chunk, then its fragment; the response never ends", async () => {
    const sim = await start({ vms: [{ vmid: 101 }], faults: [{ op: "reboot", step: "close", kind: "garble" }] });
    sim.mutateVm(101, { running: true });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/101/reboot");
    await conn.waitFor(CLOSE_FRAME.slice(FRAGMENT_OFFSET) + "\r\n");
    await sim.idle();
    const { chunks: good, rest } = chunks(rawBody(conn.text()));
    expect(good[good.length - 1]).toBe(CLOSE_FRAME);
    expect(rest).toBe(CLOSE_FRAME.slice(FRAGMENT_OFFSET) + "\r\n");
    await nothingMore(sim.url, conn);
    conn.destroy();
  });
});

describe("cut: the connection is destroyed mid-frame", () => {
  test("install cut at creating VM: half a chunk, then the end; the VM is created and the install completes", async () => {
    const sim = await start({ ...FAST, faults: [{ op: "install", step: "creating VM", kind: "cut" }] });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 150 });
    await conn.closed;
    const { chunks: good, rest } = chunks(rawBody(conn.text()));
    const cut = frame("VM creation > creating VM", "processing", "[*] VM creation");
    expect(good[good.length - 1]).toContain("completed SSH preparation");
    expect(rest).toBe(`${Buffer.byteLength(cut).toString(16)}\r\n${cut.slice(0, Math.floor(cut.length / 2))}`);
    await sim.idle();
    expect(sim.vm(150)).toMatchObject({ running: true, os: "ubuntu" });
    expect(sim.stats()).toMatchObject({ installsSucceeded: 1, connectionsDropped: 1 });
  });

  test("cut, then a failing SSH initialization: the server cleans up, the VM is gone", async () => {
    const sim = await start({
      ...FAST,
      faults: [
        { op: "install", step: "waiting for ready", kind: "cut" },
        { op: "install", step: "SSH initialization", kind: "fail" },
      ],
    });
    const conn = await rawRequest(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 151 });
    await conn.closed;
    await sim.idle();
    expect(conn.text()).not.toContain("SSH initialization");
    expect(sim.vm(151)).toBeUndefined();
    expect(sim.stats()).toMatchObject({ installsFailed: 1 });
  });

  test("only the VM the rule names: another VM's start streams intact", async () => {
    const sim = await start({ vms: [{ vmid: 101 }, { vmid: 102 }], faults: [{ op: "start", vmid: 102, kind: "cut" }] });
    const intact = await request(sim.url, "POST", "/api/vm/101/start");
    expect(intact.body.endsWith(CLOSE_FRAME)).toBe(true);
    const conn = await rawRequest(sim.url, "POST", "/api/vm/102/start");
    await conn.closed;
    expect(conn.text()).not.toContain("event: close");
    await sim.idle();
    expect(sim.vm(102)?.running).toBe(true);
  });
});

describe("late, lose, reorder", () => {
  test("late: a migration line written after event: close, inside the same response", async () => {
    const sim = await start({
      vms: [{ vmid: 170 }],
      faults: [{ op: "setNode", step: "migrating", kind: "late", skip: 13 }],
    });
    const r = await request(sim.url, "POST", "/api/vm/170/set/node", { body: { node: "pve2" } });
    expect(r.complete).toBe(true);
    const parts = r.body.split("\n\n").filter((p) => p !== "");
    expect(parts[parts.length - 2]).toBe(CLOSE);
    expect(parts[parts.length - 1]).toContain("migration finished successfully");
  });

  test("lose: frames that never arrive; the stream still closes", async () => {
    const sim = await start({ vms: [{ vmid: 170 }] });
    const intact = await request(sim.url, "POST", "/api/vm/170/set/node", { body: { node: "pve2" } });
    sim.mutateVm(170, { node: "pve1" });
    sim.addFault({ op: "setNode", step: "migrating", kind: "lose", lines: 2, skip: 12 });
    const lossy = await request(sim.url, "POST", "/api/vm/170/set/node", { body: { node: "pve2" } });
    const a = intact.body.split("\n\n");
    const b = lossy.body.split("\n\n");
    expect(b).toHaveLength(a.length - 2);
    expect(b.slice(0, 12)).toEqual(a.slice(0, 12));
    expect(b.slice(12)).toEqual(a.slice(14));
    expect(lossy.body.endsWith(CLOSE_FRAME)).toBe(true);
  });

  test("reorder: a later line arrives before the earlier ones (stderr before stdout)", async () => {
    const sim = await start({ ...FAST });
    const intact = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 160 } });
    sim.addFault({ op: "install", step: "SSH initialization", kind: "reorder", lines: 2, skip: 3 });
    const odd = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 161 } });
    const a = intact.body.replaceAll("160", "161").split("\n\n");
    const b = odd.body.split("\n\n");
    // skip 3 counts from the step's first frame, `[*] SSH initialization`.
    const at = a.indexOf(ev("VM initialization > SSH initialization", "processing", "[*] SSH initialization")) + 3;
    expect(b.slice(at, at + 3)).toEqual([a[at + 2], a[at], a[at + 1]]);
    expect(b.slice(0, at)).toEqual(a.slice(0, at));
    expect(b.slice(at + 3)).toEqual(a.slice(at + 3));
  });

  test("a rule without vmid strikes every VM; times retires it", async () => {
    const sim = await start({
      vms: [{ vmid: 101 }, { vmid: 102 }, { vmid: 103 }],
      faults: [{ op: "start", step: "finalizing", kind: "lose", times: 2 }],
    });
    for (const vmid of [101, 102]) {
      const r = await request(sim.url, "POST", `/api/vm/${vmid}/start`);
      expect(r.body).not.toContain("VM started successfully");
      expect(r.body.endsWith(CLOSE_FRAME)).toBe(true);
    }
    expect((await request(sim.url, "POST", "/api/vm/103/start")).body).toContain("VM started successfully");
  });
});
