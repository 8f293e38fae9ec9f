// The chaos campaign's draws (chaos.ts): each round's change to a stack's
// program, the fault rules, the interruption and the drift, all from one
// seeded PRNG (the simulator's mulberry32), so a seed replays every choice.
// Every draw is plain data that the campaign logs before acting on it.
import type { FaultRule } from "../simulator";
import { STEPS } from "../simulator/fault-rules";
import { Rng } from "../simulator/random";

/** A declared VM, every input the campaign checks given explicitly (no default to guess). */
export interface DeclaredVm {
  name: string;
  os: string;
  version: string;
  cpu: number;
  memoryMb: number;
  diskGb: number;
  node: string;
  running: boolean;
  rebootTriggers?: string[];
  vmid?: number;
}

export type Program = Record<string, DeclaredVm>;

const INTERRUPTIONS = ["int1", "int2", "kill9", "restart"] as const;
type InterruptionKind = (typeof INTERRUPTIONS)[number];
const DRIFTS = ["stop", "resize", "delete"] as const;
type DriftKind = (typeof DRIFTS)[number];

export interface StackDraw {
  changes: string[];
  program: Program;
  /** SIGINT etc. that many ms after `up` began */
  interruption?: { kind: InterruptionKind; afterMs: number };
  /** a change on the server, made after the round's `up`, to a VM of this resource name */
  drift?: { kind: DriftKind; resource: string };
}

const OSES = [
  { os: "ubuntu", versions: ["24.04", "22.04"] },
  { os: "debian", versions: ["12", "13"] },
  { os: "rockylinux", versions: ["9", "10"] },
];
const NODES = ["pve1", "pve2"];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[rng.below(xs.length)]!;
}

/** Each stack pins VMIDs in a range of its own (no two stacks ever declare the same VMID). */
function pinnedVmid(stack: number, program: Program, rng: Rng): number | undefined {
  const used = new Set(Object.values(program).map((v) => v.vmid));
  const free = Array.from({ length: 20 }, (_, i) => 110 + stack * 20 + i).filter((id) => !used.has(id));
  return free.length > 0 ? pick(rng, free) : undefined;
}

function newVm(stack: number, n: number, program: Program, rng: Rng): DeclaredVm {
  const o = pick(rng, OSES);
  const vmid = rng.chance(0.5) ? pinnedVmid(stack, program, rng) : undefined;
  return {
    name: `c${stack}v${n}`,
    os: o.os,
    version: pick(rng, o.versions),
    cpu: 1 + rng.below(4),
    memoryMb: 1024 * (1 + rng.below(4)),
    diskGb: 16 + 4 * rng.below(3),
    node: pick(rng, NODES),
    running: rng.chance(0.85),
    ...(vmid === undefined ? {} : { vmid }),
  };
}

/**
 * One round's change to a stack's program: one to three edits among adding a
 * VM, removing one, and changing cpu, memoryMb, diskGb (it only grows),
 * node, running, rebootTriggers or version (a replace). `next` numbers new VMs.
 */
export function changeProgram(rng: Rng, stack: number, program: Program, next: () => number, maxVms: number) {
  const out: Program = structuredClone(program);
  const changes: string[] = [];
  const edits = 1 + rng.below(3);
  for (let e = 0; e < edits; e++) {
    const names = Object.keys(out);
    const what = names.length === 0 ? "add" : pick(rng, EDITS);
    if (what === "add" && names.length < maxVms) {
      const vm = newVm(stack, next(), out, rng);
      out[vm.name] = vm;
      changes.push(`add ${vm.name}${vm.vmid ? ` (vmid ${vm.vmid})` : ""}`);
      continue;
    }
    if (names.length === 0 || what === "add") continue;
    const name = pick(rng, names);
    const vm = out[name]!;
    if (what === "remove" && names.length > 1) {
      delete out[name];
      changes.push(`remove ${name}`);
    } else if (what === "cpu") vm.cpu = 1 + ((vm.cpu + rng.below(3)) % 4);
    else if (what === "memoryMb") vm.memoryMb = 1024 * (1 + rng.below(4));
    else if (what === "diskGb") vm.diskGb += 4;
    else if (what === "node") vm.node = vm.node === "pve1" ? "pve2" : "pve1";
    else if (what === "running") vm.running = !vm.running;
    else if (what === "rebootTriggers") vm.rebootTriggers = [`r${rng.below(1_000_000)}`];
    else if (what === "version") vm.version = OSES.find((o) => o.os === vm.os)!.versions.find((v) => v !== vm.version)!;
    if (what !== "remove") changes.push(`${name}.${what} = ${JSON.stringify(vm[what as keyof DeclaredVm])}`);
  }
  return { program: out, changes };
}
const EDITS = [
  "add",
  "add",
  "remove",
  "cpu",
  "memoryMb",
  "diskGb",
  "node",
  "running",
  "rebootTriggers",
  "version",
] as const;

/**
 * The round's fault rules, each firing once (`times: 1`) at a drawn step,
 * for one drawn VM (by its name) or for any: the shapes of the simulator's
 * catalogue that a deployment meets (a lost, stalled or failed install step,
 * stream corruption, a gateway's answer, a proxy's refusal, a black hole,
 * a failing or slow shutdown, a failing start, a failed migration).
 */
export function drawFaults(rng: Rng, names: string[]): FaultRule[] {
  const rules: FaultRule[] = [];
  const count = rng.below(4);
  for (let i = 0; i < count; i++) {
    const shape = pick(rng, SHAPES)(rng);
    const name = names.length > 0 && rng.chance(0.6) ? { name: pick(rng, names) } : {};
    rules.push({ ...shape, ...name, times: 1 } as FaultRule);
  }
  return rules;
}

const installStep = (rng: Rng) => pick(rng, STEPS.install);
const SHAPES: ((rng: Rng) => Partial<FaultRule>)[] = [
  (r) => ({ op: "install", step: installStep(r), kind: pick(r, ["drop", "stall", "fail"] as const) }),
  (r) => ({
    op: "install",
    step: installStep(r),
    kind: pick(r, ["cut", "garble", "late", "lose", "reorder"] as const),
  }),
  () => ({ op: "install", kind: "gateway" }),
  () => ({ op: "install", kind: "http", status: 502 }),
  () => ({ op: "install", kind: "hang" }),
  () => ({ op: "shutdown", kind: "fail" }),
  () => ({ op: "shutdown", kind: "fail", ms: 20_000 }),
  (r) => ({ op: "start", step: pick(r, STEPS.start), kind: pick(r, ["fail", "drop"] as const) }),
  (r) => ({ op: "reboot", step: pick(r, STEPS.reboot), kind: pick(r, ["fail", "drop"] as const) }),
  (r) => ({ op: "setNode", step: "migrating", kind: pick(r, ["fail", "drop"] as const) }),
  (r) => ({ op: pick(r, ["setCpu", "setMemory", "setDisk"] as const), kind: "http", status: 502 }),
];

export function drawInterruption(rng: Rng): StackDraw["interruption"] {
  if (!rng.chance(0.35)) return undefined;
  return { kind: pick(rng, INTERRUPTIONS), afterMs: Math.round(rng.between(1_000, 8_000)) };
}

export function drawDrift(rng: Rng, names: string[]): StackDraw["drift"] {
  if (names.length === 0 || !rng.chance(0.3)) return undefined;
  return { kind: pick(rng, DRIFTS), resource: pick(rng, names) };
}
