// How long after the server has finished does a create reach its verdict,
// when it could not simply read the end off the stream (not CI)? Two cases,
// on the simulator with the real server's step durations (its clock runs
// `--speed` times faster, 10 by default, and so does the lifecycle's: every
// time below is in the server's time; at 10 a request's own latency stays
// well under the 2 s between two looks):
// - lost: installs at the measured rates of broken streams (a few in every
//   thirty lose their stream); for each install whose stream was lost and
//   then followed, the time from the server's own end of the install to the
//   create's verdict;
// - takeover: a create killed part way (its outcome thrown away, as when the
//   process dies), then the next create of the same resource: at once, while
//   the server still installs the VM; right after the server finished; and
//   90 min after the killed install began: how long it takes to take the VM
//   over, from the takeover's start and from the server's own end.
// Each outcome is checked as in the install soak: 0 wrong, 0 ghosts, 0
// orphans. `--impl DIR` measures another build of the provider (a dist/
// folder of an earlier commit), so that two releases are compared side by
// side on one simulator.
//
// - next-up: an interrupted deployment's next `up` (its creates killed
//   together, the server finishing them, then all of them again at once): how
//   long that `up`'s creates take, to their last verdict.
//
// Run: `npm run build && node dist/bench/verdict-time.js [--impl DIR] [--only lost|takeover|next-up]
// [--next at-once|finished|after] [--installs N] [--takeovers N] [--deployment N] [--speed N] [--seed S]`.
// At `--speed 1` the server's time is the wall clock's.
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { startSimulator } from "../simulator";
import type { SimulatorHandle } from "../simulator";
import { arg, simClock, textArg } from "./soak-support";

const SPEED = arg("--speed", 10);
/** The client's stream idle timeout, its default 15 min in the server's time. */
const IDLE_MS = (15 * 60_000) / SPEED;

interface Impl {
  create(inputs: unknown, ctx: unknown): Promise<{ state: { vmid: number; installState?: string } }>;
  /** Builds whose `check` gave an unnamed Vm a name derived from its URN: that name, as their check would. */
  legacyName?: (urn: string) => string;
  PartialError: new (...a: never[]) => Error & { state: { vmid: number; installState?: string } };
  GoPveQemuClient: new (o: { endpoint: string; streamIdleTimeoutMs?: number }) => { close(): Promise<void> };
}

function loadImpl(): Impl {
  const root = path.resolve(textArg("--impl") ?? path.join(__dirname, ".."));
  const lifecycle = require(path.join(root, "provider/lifecycle")) as Impl;
  const client = require(path.join(root, "provider/client")) as Pick<Impl, "GoPveQemuClient">;
  return { ...lifecycle, GoPveQemuClient: client.GoPveQemuClient, legacyName: legacyNameOf(root) };
}

function legacyNameOf(root: string): ((urn: string) => string) | undefined {
  try {
    const { derivedName } = require(path.join(root, "provider/lifecycle/derived-name")) as {
      derivedName(urn: string, max: number): string;
    };
    const { LIMITS } = require(path.join(root, "provider/lifecycle/inputs")) as { LIMITS: { nameMax: number } };
    return (urn) => derivedName(urn, LIMITS.nameMax);
  } catch {
    return undefined; // this build names unnamed VMs itself, at create
  }
}

interface Verdict {
  vmid?: number;
  kind: string;
  lost: boolean;
  at: number;
}

async function run(
  impl: Impl,
  sim: SimulatorHandle,
  inputs: object,
  ctx: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Verdict> {
  let lost = false;
  const reporter = {
    info: (m: string) => {
      if (process.env.VERDICT_TIME_LOG) console.log(`  info ${m}`);
    },
    debug: () => undefined,
    warn: (m: string) => {
      if (process.env.VERDICT_TIME_LOG) console.log(`  warn ${m}`);
      if (/following VM/.test(m)) lost = true;
    },
  };
  const client = ctx.client as unknown;
  const full = { ...ctx, reporter, client: () => client, connectionDefaults: { endpoint: sim.url }, signal };
  const urn = ctx.urn as string;
  const named = impl.legacyName ? { ...inputs, name: impl.legacyName(urn) } : inputs;
  try {
    const r = await impl.create(named, full);
    // A build that records what it cannot settle yet as unconfirmed (and succeeds) says so in its state.
    return { vmid: r.state.vmid, kind: r.state.installState ?? "installed", lost, at: Date.now() };
  } catch (err) {
    const at = Date.now();
    if (err instanceof impl.PartialError) {
      return { vmid: err.state.vmid, kind: err.state.installState ?? "partial", lost, at };
    }
    return { kind: `error ${(err as { code?: string }).code ?? "?"}`, lost, at };
  }
}

/** Sim-time seconds from `from` to `to` (both Date.now() values). */
const simSeconds = (from: number, to: number): number => ((to - from) * SPEED) / 1000;

function quantiles(xs: number[]): string {
  if (xs.length === 0) return "none";
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return `n ${s.length}, median ${q(0.5).toFixed(0)} s, p95 ${q(0.95).toFixed(0)} s, worst ${s[s.length - 1]!.toFixed(0)} s`;
}

function endOf(sim: SimulatorHandle, vmid: number | undefined): number | undefined {
  if (vmid === undefined) return undefined;
  const rec = sim.installs().filter((r) => r.vmid === vmid && r.endedAt !== null);
  return rec.length > 0 ? rec[rec.length - 1]!.endedAt! : undefined;
}

function check(sim: SimulatorHandle, verdicts: Verdict[]): { wrong: number; ghosts: number; orphans: number } {
  const onServer = new Map(sim.vms().map((vm) => [vm.vmid, vm]));
  const kept = verdicts.filter((v) => v.vmid !== undefined && !v.kind.startsWith("error"));
  const known = new Set(kept.map((v) => v.vmid));
  return {
    wrong: kept.filter((v) => v.kind === "installed" && onServer.get(v.vmid!)?.status !== "running").length,
    ghosts: kept.filter((v) => !onServer.has(v.vmid!)).length,
    orphans: [...onServer.keys()].filter((vmid) => !known.has(vmid)).length,
  };
}

const urnOf = (name: string): string => `urn:pulumi:dev::verdict-time::go-pve-qemu:index:Vm::${name}`;

async function lostStreams(impl: Impl, installs: number, seed: number): Promise<void> {
  const sim = await startSimulator({ speed: SPEED, sshKey: true, measuredRates: true, seed });
  const client = new impl.GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: IDLE_MS });
  const identity = randomBytes(16).toString("hex");
  try {
    const clock = simClock(SPEED);
    const verdicts = await Promise.all(
      Array.from({ length: installs }, (_, i) =>
        run(
          impl,
          sim,
          { os: "ubuntu", version: "24.04", ...(i % 2 ? { vmid: 150 + (i >> 1) } : {}) },
          {
            client,
            clock,
            urn: urnOf(`lost${i}`),
            identity,
          },
        ),
      ),
    );
    await sim.idle();
    const late = verdicts.flatMap((v) => {
      const end = v.lost ? endOf(sim, v.vmid) : undefined;
      return end === undefined ? [] : [Math.max(0, simSeconds(end, v.at))];
    });
    const kinds: Record<string, number> = {};
    for (const v of verdicts) kinds[v.kind] = (kinds[v.kind] ?? 0) + 1;
    console.log(`lost streams: ${installs} installs, outcomes ${JSON.stringify(kinds)}`);
    console.log(`  verdict after the server's end, lost and followed: ${quantiles(late)}`);
    console.log(`  ${JSON.stringify(check(sim, verdicts))}`);
  } finally {
    await client.close();
    await sim.close();
  }
}

/** When the next create comes after the killed one: at once (the server still installing), once the server finished, or this long after the killed install began. */
type Next = { at: "at-once" } | { at: "finished" } | { at: "after"; gapMs: number };

function nextText(next: Next): string {
  if (next.at === "at-once") return "at once, while the server still installs it";
  if (next.at === "finished") return "right after the server finished";
  return `${next.gapMs / 60_000} min after the killed install began`;
}

async function takeovers(impl: Impl, count: number, seed: number, next: Next): Promise<void> {
  const sim = await startSimulator({ speed: SPEED, sshKey: true, seed });
  const client = new impl.GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: IDLE_MS });
  const identity = randomBytes(16).toString("hex");
  try {
    const clock = simClock(SPEED);
    const one = async (i: number): Promise<{ v: Verdict; took: number }> => {
      const inputs = { os: "ubuntu", version: "24.04", ...(i % 2 ? { vmid: 200 + i } : {}) };
      const ctx = { client, clock, urn: urnOf(`take${i}`), identity };
      // killed part way: between 40 s and 160 s into the install, its outcome lost
      const began = Date.now();
      const abort = new AbortController();
      const cut = setTimeout(() => abort.abort(), (40_000 + ((i * 37_000) % 120_000)) / SPEED);
      await run(impl, sim, inputs, ctx, abort.signal);
      clearTimeout(cut);
      const mine = (r: { requestedName: string }): boolean => r.requestedName.startsWith(`take${i}-`);
      if (next.at !== "at-once") {
        while (sim.installs().some((r) => mine(r) && r.endedAt === null)) await sleepReal(50);
      }
      if (next.at === "after") await sleepReal(Math.max(0, began + next.gapMs / SPEED - Date.now()));
      const from = Date.now();
      const v = await run(impl, sim, inputs, ctx);
      return { v, took: simSeconds(from, v.at) };
    };
    const results = await Promise.all(Array.from({ length: count }, (_, i) => one(i)));
    await sim.idle();
    const verdicts = results.map((r) => r.v);
    const kinds: Record<string, number> = {};
    for (const v of verdicts) kinds[v.kind] = (kinds[v.kind] ?? 0) + 1;
    console.log(`takeovers, the next create ${nextText(next)}: ${count}, outcomes ${JSON.stringify(kinds)}`);
    const taken = results.filter((r) => !r.v.kind.startsWith("error"));
    console.log(`  verdict after the takeover began, VM kept: ${quantiles(taken.map((r) => r.took))}`);
    const past = taken.flatMap((r) => {
      const end = endOf(sim, r.v.vmid);
      return end === undefined ? [] : [Math.max(0, simSeconds(end, r.v.at))];
    });
    console.log(`  verdict after the server's end, VM kept: ${quantiles(past)}`);
    console.log(`  ${JSON.stringify(check(sim, verdicts))}`);
  } finally {
    await client.close();
    await sim.close();
  }
}

const sleepReal = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * An interrupted deployment's next `up`: `count` creates of one deployment
 * killed together 100 s into their installs (a double Ctrl-C), the server
 * finishing them, then the next deployment's creates of the same resources
 * all at once: the time from its start to its last verdict, as long as that
 * `up` takes.
 */
async function nextUp(impl: Impl, count: number, seed: number): Promise<void> {
  const sim = await startSimulator({ speed: SPEED, sshKey: true, seed });
  const client = new impl.GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: IDLE_MS });
  const identity = randomBytes(16).toString("hex");
  try {
    const clock = simClock(SPEED);
    const inputs = (i: number) => ({ os: "ubuntu", version: "24.04", ...(i % 2 ? { vmid: 300 + i } : {}) });
    const ctx = (i: number) => ({ client, clock, urn: urnOf(`up${i}`), identity });
    const abort = new AbortController();
    const cut = setTimeout(() => abort.abort(), 100_000 / SPEED);
    const all = Array.from({ length: count }, (_, i) => i);
    await Promise.all(all.map((i) => run(impl, sim, inputs(i), ctx(i), abort.signal)));
    clearTimeout(cut);
    await sim.idle();
    const from = Date.now();
    const verdicts = await Promise.all(all.map((i) => run(impl, sim, inputs(i), ctx(i))));
    const took = simSeconds(from, Math.max(...verdicts.map((v) => v.at)));
    const kinds: Record<string, number> = {};
    for (const v of verdicts) kinds[v.kind] = (kinds[v.kind] ?? 0) + 1;
    console.log(
      `an interrupted deployment's next up, once the server finished: ${count} VMs, outcomes ${JSON.stringify(kinds)}`,
    );
    console.log(`  the next up's creates took: ${took.toFixed(0)} s`);
    console.log(`  ${JSON.stringify(check(sim, verdicts))}`);
  } finally {
    await client.close();
    await sim.close();
  }
}

async function main(): Promise<void> {
  const impl = loadImpl();
  const seed = arg("--seed", 1);
  console.log(`speed ${SPEED}: times in the server's time`);
  const only = textArg("--only");
  const next = textArg("--next");
  const taking = (at: Next["at"]): boolean =>
    only !== "lost" && only !== "next-up" && (next === undefined || next === at);
  await Promise.all([
    only === undefined || only === "lost" ? lostStreams(impl, arg("--installs", 120), seed) : undefined,
    only === undefined || only === "next-up" ? nextUp(impl, arg("--deployment", 3), seed + 3) : undefined,
    taking("at-once") ? takeovers(impl, arg("--takeovers", 10), seed, { at: "at-once" }) : undefined,
    taking("finished") ? takeovers(impl, arg("--takeovers", 10), seed + 1, { at: "finished" }) : undefined,
    taking("after")
      ? takeovers(impl, arg("--takeovers", 10), seed + 2, { at: "after", gapMs: 90 * 60_000 })
      : undefined,
  ]);
}

void main();
