// Turns what the caller gave (options, config file, flags) into the one
// resolved configuration every other part reads. Validation happens here, once.
import { DURATION_DEFAULTS, SimulatorConfigSchema, describeZodError } from "./schemas";
import type { DurationKey, Durations, NodeSpec, SimulatorConfig, SimulatorOptions } from "./schemas";

export interface ResolvedConfig extends Omit<SimulatorConfig, "nodes" | "durations"> {
  nodes: NodeSpec[];
  durations: Durations;
  logSink: ((line: string) => void) | null;
}

export function resolveConfig(options: SimulatorOptions = {}): ResolvedConfig {
  const { log, ...data } = options;
  const parsed = SimulatorConfigSchema.safeParse({ ...data, log: typeof log === "boolean" ? log : false });
  if (!parsed.success) throw describeZodError("invalid simulator options", parsed.error);
  const cfg = parsed.data;

  // A node given by name gets the address pattern of .env.example (NODE_pve1=192.168.0.11).
  const nodes = cfg.nodes.map((n, i): NodeSpec => {
    if (typeof n !== "string") return { ...n, ip: n.ip ?? `192.168.0.${11 + i}` };
    return { name: n, ip: `192.168.0.${11 + i}`, maxCpu: 32, maxMemoryMb: 131_072, diskGb: 100, online: true };
  });
  const names = new Set<string>();
  for (const n of nodes) {
    if (names.has(n.name)) throw new Error(`invalid simulator options: node "${n.name}" listed twice`);
    names.add(n.name);
  }
  if (!names.has(cfg.mainNode)) {
    throw new Error(
      `invalid simulator options: mainNode "${cfg.mainNode}" is not one of the nodes (${[...names].join(", ")})`,
    );
  }

  const durations = { ...DURATION_DEFAULTS } as Durations;
  for (const key of Object.keys(durations) as DurationKey[]) {
    const given = cfg.durations[key];
    // durationsZero zeroes the defaults; a duration given explicitly still counts.
    durations[key] = given ?? (cfg.durationsZero ? 0 : DURATION_DEFAULTS[key]);
  }
  if (cfg.guestShutdownMs !== undefined) durations.shutdownGrace = cfg.guestShutdownMs;

  let logSink: ((line: string) => void) | null = null;
  if (typeof log === "function") logSink = log;
  else if (log === true) logSink = (line) => process.stderr.write(`[sim] ${line}\n`);

  return { ...cfg, nodes, durations, logSink };
}
