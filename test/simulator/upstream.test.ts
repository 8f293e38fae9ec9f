// The simulator's bytes against the real server's (test/fixtures/upstream),
// wherever the simulator claims the same behaviour. Normalised: durations,
// dates, the output text of the Proxmox stand-ins (init script, qm migrate),
// and the Connection/Keep-Alive headers node adds to plain answers (Go sends
// none). Everything else - status line, header names, values and order, event
// texts and order, chunking, the way a broken stream breaks - must match.
import { loadRecording } from "../client/helpers/replay";
import { initScriptLines } from "../../simulator/outputs";
import { useSimulators, UBUNTU } from "./helpers";
import { FRAGMENT_OFFSET, rawRequest, type RawConnection } from "./raw";

const start = useSimulators();

interface Parsed {
  statusLine: string;
  headers: string[];
  /** chunked: the decoded chunks; else the body as one element */
  chunks: string[];
  /** chunked: the bytes after the last well-formed chunk ("" when the response ended cleanly) */
  rest: string;
  ended: boolean;
}

function parse(bytes: string, plain: boolean): Parsed {
  const at = bytes.indexOf("\r\n\r\n");
  const [statusLine, ...headers] = bytes.slice(0, at).split("\r\n");
  const body = bytes.slice(at + 4);
  const normalised = headers
    .map((h) => (h.startsWith("Date: ") ? "Date: <date>" : h))
    .filter((h) => !(plain && (h === "Connection: keep-alive" || h.startsWith("Keep-Alive: "))));
  if (!headers.includes("Transfer-Encoding: chunked")) {
    return { statusLine: statusLine!, headers: normalised, chunks: [body], rest: "", ended: true };
  }
  const chunks: string[] = [];
  let i = 0;
  let ended = false;
  for (;;) {
    const eol = body.indexOf("\r\n", i);
    const size = eol === -1 ? null : /^[0-9a-f]+$/.exec(body.slice(i, eol));
    if (!size) break;
    const n = parseInt(size[0], 16);
    if (body.slice(eol + 2 + n, eol + 4 + n) !== "\r\n") break;
    i = eol + 4 + n;
    if (n === 0) {
      ended = true;
      break;
    }
    chunks.push(body.slice(eol + 2, eol + 2 + n));
  }
  return { statusLine: statusLine!, headers: normalised, chunks, rest: body.slice(i), ended };
}

const DURATION = /\(\d+\.\d\ds\)|in \d+\.\d\ds/g;
/** Frames without durations and without the stand-ins' command output lines. */
function events(p: Parsed): string[] {
  return p.chunks
    .flatMap((c) => c.split("\n\n").filter((f) => f !== ""))
    .filter((f) => !/"message":" {2}/.test(f))
    .map((f) => f.replace(DURATION, "(T)"));
}

const recorded = (name: string, plain = false): Parsed => parse(loadRecording(name).bytes.toString("latin1"), plain);

/** One request, read raw until the response ended (or, for a broken one, until `needle`). */
async function simulated(
  base: string,
  method: string,
  path: string,
  body?: object,
  needle = "\r\n0\r\n\r\n",
  plain = false,
): Promise<Parsed> {
  const conn: RawConnection = await rawRequest(base, method, path, body);
  if (plain) {
    // A length-framed answer: the whole of it, once its body is in.
    await conn.until((t) => {
      const at = t.indexOf("\r\n\r\n");
      const length = /Content-Length: (\d+)/.exec(t);
      return at !== -1 && length !== null && t.length >= at + 4 + Number(length[1]);
    });
  } else {
    await conn.waitFor(needle);
  }
  conn.destroy();
  return parse(conn.text(), plain);
}

describe("plain answers: the same bytes", () => {
  test("shutdown answers ok once the guest is off; status right after says stopped", async () => {
    const sim = await start({ vms: [{ vmid: 151, running: true }] });
    const shutdown = await simulated(sim.url, "POST", "/api/vm/151/shutdown", undefined, "", true);
    expect(shutdown).toEqual(recorded("shutdown-ok.raw", true));
    const status = await simulated(sim.url, "GET", "/api/vm/151/status", undefined, "", true);
    expect(status).toEqual(recorded("status-right-after-shutdown.raw", true));
  });

  test("status of a VM on another node", async () => {
    const sim = await start({ vms: [{ vmid: 151, node: "pve2", running: true }] });
    const status = await simulated(sim.url, "GET", "/api/vm/151/status", undefined, "", true);
    expect(status).toEqual(recorded("status-vm-on-other-node.raw", true));
  });

  test("destroy of a VMID with no config", async () => {
    const sim = await start();
    const destroy = await simulated(sim.url, "POST", "/api/vm/150/destroy", undefined, "", true);
    expect(destroy).toEqual(recorded("destroy-missing-vm.raw", true));
  });
});

describe("streams: the same headers, events and chunking", () => {
  const FAST = { sshKey: true, imageCache: ["ubuntu/24.04"] };

  test.each([
    ["install-first-ssh-key-created.raw", {}, { ...UBUNTU, id: 150 }],
    ["install-sized.raw", FAST, { ...UBUNTU, id: 151, cpu: 4, ram: 2560, disk: "20G" }],
    ["install-node-pve2-migration.raw", FAST, { ...UBUNTU, id: 155, node: "pve2" }],
    ["install-node-main-refused.raw", FAST, { ...UBUNTU, id: 156, node: "pve1" }],
    ["install-vmid-taken.raw", { ...FAST, vms: [{ vmid: 150 }] }, { ...UBUNTU, id: 150 }],
    [
      "install-image-url-404.raw",
      { ...FAST, faults: [{ op: "install", step: "validating OS image URL", kind: "fail" }] },
      { ...UBUNTU, id: 159 },
    ],
    [
      "install-init-script-fails-cleaned-up.raw",
      { ...FAST, faults: [{ op: "install", step: "SSH initialization", kind: "fail" }] },
      { ...UBUNTU, id: 162 },
    ],
    [
      "install-qm-start-fails-vm-left.raw",
      { ...FAST, faults: [{ op: "install", step: "starting VM", kind: "fail" }] },
      { ...UBUNTU, id: 163 },
    ],
  ] as const)("%s", async (name, options, body) => {
    const sim = await start(options as never);
    const got = await simulated(sim.url, "POST", "/api/vm/install", body);
    const want = recorded(name);
    expect(got.statusLine).toBe(want.statusLine);
    expect(got.headers).toEqual(want.headers);
    expect(events(got)).toEqual(events(want));
    expect([got.ended, got.rest]).toEqual([true, ""]);
  });

  test("set-node-pve2.raw: one chunk per frame, the migration's lines, then close", async () => {
    const sim = await start({ vms: [{ vmid: 151 }] });
    const got = await simulated(sim.url, "POST", "/api/vm/151/set/node", { node: "pve2" });
    const want = recorded("set-node-pve2.raw");
    expect(got.headers).toEqual(want.headers);
    for (const p of [got, want]) {
      expect(p.chunks.every((c) => c.endsWith("\n\n") && c.split("\n\n").length === 2)).toBe(true);
      expect(p.chunks.slice(0, -1).every((c) => c.startsWith('data: {"step":"migrating","status":"processing"'))).toBe(
        true,
      );
      expect(p.chunks[p.chunks.length - 1]).toBe("event: close\ndata: {}\n\n");
      expect([p.ended, p.rest]).toEqual([true, ""]);
    }
  });
});

describe("broken streams: they break the same way", () => {
  /** What follows the last good chunk: a frame's tail, or a frame again outside the framing. */
  function breakage(p: Parsed): string {
    const frames = p.chunks.flatMap((c) =>
      c
        .split("\n\n")
        .filter((f) => f !== "")
        .map((f) => f + "\n\n"),
    );
    if (frames.some((f) => p.rest.startsWith(`\r\n${f}\r\n`))) return "duplicate";
    if (frames.some((f) => p.rest.startsWith(f.slice(FRAGMENT_OFFSET)) || f.includes(p.rest.split("\r\n")[0]!)))
      return "fragment";
    return `unknown: ${JSON.stringify(p.rest.slice(0, 80))}`;
  }

  test("set/node: a fragment of a frame with no chunk header, no close (a and b)", async () => {
    const sim = await start({
      vms: [{ vmid: 170 }],
      faults: [{ op: "setNode", step: "migrating", kind: "garble", skip: 1 }],
    });
    const got = await simulated(sim.url, "POST", "/api/vm/170/set/node", { node: "pve2" }, '\r\nrating","status"');
    for (const name of ["set-node-broken-chunk-framing-a.raw", "set-node-broken-chunk-framing-b.raw"]) {
      const want = recorded(name);
      expect(got.headers).toEqual(want.headers);
      expect([name, breakage(want), want.ended]).toEqual([name, "fragment", false]);
      expect(want.chunks.join("")).not.toContain("event: close");
    }
    expect([breakage(got), got.ended]).toEqual(["fragment", false]);
    // Both stop right inside the step name, 18 bytes into the frame.
    expect(got.rest.startsWith('rating","status":"processing"')).toBe(true);
    expect(recorded("set-node-broken-chunk-framing-a.raw").rest.startsWith('rating","status":"processing"')).toBe(true);
    await sim.idle();
    expect(sim.vm(170)?.node).toBe("pve2");
  });

  test("install: a frame written twice, outside the framing, right after SSH initialization", async () => {
    const sim = await start({
      sshKey: true,
      imageCache: ["ubuntu/24.04"],
      // The frame after the init script's output: `[+] SSH initialization completed`.
      faults: [
        {
          op: "install",
          step: "SSH initialization",
          kind: "garble",
          variant: "duplicate",
          skip: 1 + initScriptLines("ubuntu", "24.04").length,
        },
      ],
    });
    const got = await simulated(
      sim.url,
      "POST",
      "/api/vm/install",
      { ...UBUNTU, id: 172 },
      '"}\n\n\r\n\r\ndata: {"step":"VM initialization > SSH initialization"',
    );
    const want = recorded("install-chatty-init-broken-framing.raw");
    expect([breakage(got), got.ended]).toEqual(["duplicate", false]);
    expect([breakage(want), want.ended]).toEqual(["duplicate", false]);
    // The same last event before the break, the same events up to it.
    expect(events(got)).toEqual(events(want));
  });

  test("install: a chunk missing the LF of its CRLF (install-chatty-init-odd.raw)", async () => {
    const want = recorded("install-chatty-init-odd.raw");
    expect(want.rest).toMatch(/^[0-9a-f]+\r\n/);
    const sim = await start({
      sshKey: true,
      imageCache: ["ubuntu/24.04"],
      faults: [{ op: "install", step: "SSH initialization", kind: "garble", variant: "crlf", skip: 3 }],
    });
    const got = await simulated(sim.url, "POST", "/api/vm/install", { ...UBUNTU, id: 172 });
    for (const p of [got, want]) {
      // The chunk's data ends in "\n\n\r" and the next chunk header follows at once.
      expect(/^[0-9a-f]+\r\n[^]*?\n\n\r[0-9a-f]+\r\n/.test(p.rest)).toBe(true);
    }
  });
});
