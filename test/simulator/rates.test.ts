// The measured-rates mode: stream corruption at the rates measured on the real
// server, from a seeded RNG (same seed, same run). Every corrupted stream is
// recognisable on the wire, and the operation behind it always completes.
import { parseCli } from "../../simulator/cli";
import { INIT_SCRIPT_RATES, MIGRATION_RATES } from "../../simulator";
import { Rng } from "../../simulator/random";
import { MeasuredRates } from "../../simulator/rates";
import { request, useSimulators } from "./helpers";
import { rawBody, rawRequest } from "./raw";

const start = useSimulators();

function tally(op: "setNode" | "install", step: string, n: number, seed: number): Record<string, number> {
  const rates = new MeasuredRates(new Rng(seed));
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    for (const c of rates.forOutput(op, step, 14)) counts[c.kind] = (counts[c.kind] ?? 0) + 1;
  }
  return counts;
}

describe("the rates", () => {
  test("qm migrate output: garble, reorder, late and lose at their measured shares", () => {
    const n = 60_000;
    const counts = tally("setNode", "migrating", n, 3);
    for (const [kind, rate] of Object.entries(MIGRATION_RATES)) {
      expect((counts[kind] ?? 0) / n).toBeGreaterThan(rate * 0.8);
      expect((counts[kind] ?? 0) / n).toBeLessThan(rate * 1.2);
    }
    expect(counts.cut).toBeUndefined();
  });

  test("the init script: 4 of 30 streams end without close (garble or cut), nothing else", () => {
    const n = 30_000;
    const counts = tally("install", "SSH initialization", n, 4);
    expect(Object.keys(counts).sort()).toEqual(["cut", "garble"]);
    const ended = (counts.garble! + counts.cut!) / n;
    expect(ended).toBeGreaterThan((INIT_SCRIPT_RATES.garble + INIT_SCRIPT_RATES.cut) * 0.85);
    expect(ended).toBeLessThan((INIT_SCRIPT_RATES.garble + INIT_SCRIPT_RATES.cut) * 1.15);
  });

  test("other output (start, reboot, or steps without a command's output) is never struck", () => {
    expect(tally("install", "migrating VM", 5_000, 5)).toEqual({});
    const rates = new MeasuredRates(new Rng(5));
    for (let i = 0; i < 2_000; i++) expect(rates.forOutput("start", "SSH initialization", 14)).toEqual([]);
  });
});

/** One set/node migration, read raw; what the client got, once the server is done. */
async function migrate(base: string, vmid: number, node: string, idle: () => Promise<void>): Promise<string> {
  const conn = await rawRequest(base, "POST", `/api/vm/${vmid}/set/node`, { node });
  await conn.waitFor("migrating");
  await idle();
  // Bytes written before the flow ended have arrived once a later request is answered.
  await request(base, "GET", "/api/health");
  conn.destroy();
  return rawBody(conn.text());
}

describe("measuredRates: true", () => {
  async function soak(
    seed: number,
    runs: number,
    measuredRates = true,
  ): Promise<{ bodies: string[]; corrupted: number; node: string }> {
    const sim = await start({ measuredRates, seed, vms: [{ vmid: 170 }], durations: { migrate: 1_000 } });
    const bodies: string[] = [];
    for (let i = 0; i < runs; i++) {
      bodies.push(await migrate(sim.url, 170, i % 2 === 0 ? "pve2" : "pve1", () => sim.idle()));
    }
    return { bodies, corrupted: sim.stats().streamsCorrupted, node: sim.vm(170)!.node };
  }

  test("every corrupted stream differs on the wire, every migration still happens, and a seed replays the run", async () => {
    const runs = 90;
    // Without the rates every stream of a direction is the same bytes.
    const intact = (await soak(21, 2, false)).bodies;
    expect(intact[0]!.endsWith("event: close\ndata: {}\n\n\r\n0\r\n\r\n")).toBe(true);
    const a = await soak(21, runs);
    const broken = a.bodies.filter((body, i) => body !== intact[i % 2]);
    expect(broken.length).toBe(a.corrupted);
    expect(broken.length).toBeGreaterThan(0);
    // Some of them never end (broken framing): no terminating chunk.
    expect(broken.some((body) => !body.endsWith("\r\n0\r\n\r\n"))).toBe(true);
    // 90 migrations, alternating: the VM ends where the last one sent it.
    expect(a.node).toBe("pve1");
    const b = await soak(21, runs);
    expect(b.bodies).toEqual(a.bodies);
  });
});

describe("at run time", () => {
  test("settings({ measuredRates }) turns the corruption on and off", async () => {
    const sim = await start({ seed: 21, vms: [{ vmid: 170 }], durations: { migrate: 1_000 } });
    const go = (i: number): Promise<string> => migrate(sim.url, 170, i % 2 === 0 ? "pve2" : "pve1", () => sim.idle());
    for (let i = 0; i < 20; i++) await go(i);
    expect(sim.stats().streamsCorrupted).toBe(0);
    sim.settings({ measuredRates: true });
    for (let i = 0; i < 60; i++) await go(i);
    const struck = sim.stats().streamsCorrupted;
    expect(struck).toBeGreaterThan(0);
    sim.settings({ measuredRates: false });
    for (let i = 0; i < 20; i++) await go(i);
    expect(sim.stats().streamsCorrupted).toBe(struck);
  });
});

describe("command line", () => {
  test("--measured-rates, --seed, --guest-shutdown-ms, --vmid-pick, --status-any-node", () => {
    expect(
      parseCli([
        "--measured-rates",
        "--seed",
        "7",
        "--guest-shutdown-ms",
        "120000",
        "--vmid-pick",
        "lowest",
        "--status-any-node",
      ]),
    ).toEqual({ measuredRates: true, seed: 7, guestShutdownMs: 120_000, vmidPick: "lowest", statusLocalOnly: false });
    expect(() => parseCli(["--vmid-pick", "random"])).toThrow(/invalid command line/);
  });
});
