// A simulator, real clients, a capturing Reporter and short timings, for
// integration tests of the lifecycle functions.
import { GoPveQemuClient } from "../../provider/client";
import type { GoPveQemuApi } from "../../provider/client/api";
import type { LifecycleContext, ResolvedConnection, Timing, VmInputs, VmState } from "../../provider/lifecycle";
import { startSimulator } from "../../simulator";
import type { SimulatorHandle, SimulatorOptions } from "../../simulator";
import { ProcessScope } from "../../provider/lifecycle";

export type Level = "info" | "warn" | "debug";
export interface Line {
  level: Level;
  msg: string;
}

/** Simulated time runs this much faster: an install takes ~0.1 s. */
export const SPEED = 2000;
/**
 * The longest legitimate silence is the 10-minute SSH timeout: 0.3 s here. The rest is room for a
 * loaded machine, on which this process (the simulator's too) can stall for a second or more: with
 * CI_LOAD=1 (a busy core beside four jest workers) 2.5 s was once too little (a broken CRLF at the
 * install's first line read as a lost stream).
 */
const IDLE_MS = 6000;
/** The longest wait for an answer's headers, in real ms: below the idle limit, which also runs meanwhile. */
const HEADERS_MS = 5000;

const FAST: Partial<Timing> = {
  pollIntervalMs: 10,
  shutdownTimeoutMs: 2000,
  stopTimeoutMs: 2000,
  followTimeoutMs: 3000,
  confirmTimeoutMs: 2000,
  goneTimeoutMs: 2000,
};

export interface Harness {
  sim: SimulatorHandle;
  endpoint: string;
  /** Every line reported so far (all contexts of this harness). */
  lines: Line[];
  /** A context with its own line list (for tests running in parallel). */
  ctx(extra?: Partial<LifecycleContext>): LifecycleContext & { lines: Line[] };
  /** A raw client, as "another client" of the server. */
  rawClient(): GoPveQemuApi;
  inputs(patch?: Partial<Record<keyof VmInputs, unknown>>): VmInputs;
  /** VMs on the simulator that no given state accounts for. */
  orphans(states: Array<VmState | undefined>): number[];
  close(): Promise<void>;
}

export async function startHarness(options: SimulatorOptions = {}, timing: Partial<Timing> = {}): Promise<Harness> {
  const sim = await startSimulator({ speed: SPEED, sshKey: true, ...options });
  const clients: GoPveQemuClient[] = [];
  const cache = new Map<string, GoPveQemuClient>();
  const lines: Line[] = [];
  // One provider process: every operation of this harness coordinates through the same scope.
  const scope = new ProcessScope();
  const clientFor = (conn: ResolvedConnection): GoPveQemuApi => {
    const key = JSON.stringify(conn);
    let c = cache.get(key);
    if (!c) {
      c = new GoPveQemuClient({
        ...conn,
        streamIdleTimeoutMs: IDLE_MS,
        // go-pve-qemu sends its headers at once, and a gateway fault answers after 29 simulated s (15 ms
        // here); yet on a loaded machine the simulator, in this very process, may answer most of a second
        // late, which must not read as a server that never answered. Only the black-hole test waits it out.
        streamHeadersTimeoutMs: HEADERS_MS,
        requestTimeoutMs: 5000,
        connectTimeoutMs: 2000,
      });
      cache.set(key, c);
      clients.push(c);
    }
    return c;
  };
  const h: Harness = {
    sim,
    endpoint: sim.url,
    lines,
    ctx(extra = {}) {
      const own: Line[] = [];
      const push = (level: Level) => (msg: string) => {
        own.push({ level, msg });
        lines.push({ level, msg });
      };
      return {
        lines: own,
        reporter: { info: push("info"), warn: push("warn"), debug: push("debug") },
        process: scope,
        client: clientFor,
        connectionDefaults: { endpoint: sim.url },
        timing: { ...FAST, ...timing },
        ...extra,
      };
    },
    rawClient() {
      const c = new GoPveQemuClient({ endpoint: sim.url, streamIdleTimeoutMs: IDLE_MS });
      clients.push(c);
      return c;
    },
    inputs(patch = {}) {
      return { os: "ubuntu", version: "24.04", ...patch } as VmInputs;
    },
    orphans(states) {
      const known = new Set(states.filter((s): s is VmState => s !== undefined).map((s) => s.vmid));
      return sim
        .vms()
        .map((vm) => vm.vmid)
        .filter((vmid) => !known.has(vmid));
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    },
  };
  return h;
}

/** The messages of one level. */
export function messages(lines: Line[], level?: Level): string[] {
  return lines.filter((l) => level === undefined || l.level === level).map((l) => l.msg);
}
