// The fault book: rules that make a given operation, step, VM or name fail in
// one of the wire doc's shapes. Deterministic: the first matching rule (in the
// order added) fires, `pass` lets that many matching calls through first, and
// `times` counts down to its retirement.
import { FaultRuleSchema, FRONT_KINDS, STEPS, normalizeStep } from "./fault-rules";
import { describeZodError } from "./schemas";
import type { FaultRule, Op } from "./fault-rules";

export interface FaultQuery {
  op: Op;
  step: string;
  /** The VM concerned; 0 or undefined when not known yet. */
  vmid?: number | undefined;
  /** Names the VM answers to (requested name, real name). */
  names?: readonly string[];
}

type Kind = FaultRule["kind"];

interface Entry {
  rule: FaultRule & { id: string };
  remaining: number | null;
  /** matching calls still to let through */
  passing: number;
}

export class FaultBook {
  private entries: Entry[] = [];
  private nextId = 1;

  constructor(private readonly onFire: (rule: FaultRule, q: FaultQuery) => void) {}

  /** Validates and adds a rule; returns its id. */
  add(input: unknown): string {
    const parsed = FaultRuleSchema.safeParse(input);
    if (!parsed.success) throw describeZodError("invalid fault rule", parsed.error);
    const rule = parsed.data;
    const id = rule.id ?? `fault-${this.nextId++}`;
    if (this.entries.some((e) => e.rule.id === id)) throw new Error(`a fault rule with id "${id}" already exists`);
    this.entries.push({ rule: { ...rule, id }, remaining: rule.times ?? null, passing: rule.pass ?? 0 });
    return id;
  }

  remove(id: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.rule.id !== id);
    return this.entries.length !== before;
  }

  clear(): number {
    const n = this.entries.length;
    this.entries = [];
    return n;
  }

  list(): FaultRule[] {
    return this.entries.map((e) => {
      const { pass: _pass, ...rule } = e.rule;
      return {
        ...rule,
        ...(e.remaining === null ? {} : { times: e.remaining }),
        ...(e.passing > 0 ? { pass: e.passing } : {}),
      };
    });
  }

  /** The first matching rule of one of `kinds`, consumed once; undefined when none. */
  take(q: FaultQuery, kinds: readonly Kind[]): FaultRule | undefined {
    const entry = this.entries.find((e) => {
      if (!kinds.includes(e.rule.kind) || !matches(e.rule, q)) return false;
      if (e.passing === 0) return true;
      e.passing--;
      return false;
    });
    if (!entry) return undefined;
    if (entry.remaining !== null && --entry.remaining <= 0) this.remove(entry.rule.id);
    this.onFire(entry.rule, q);
    return entry.rule;
  }
}

function matches(rule: FaultRule, q: FaultQuery): boolean {
  if (rule.op !== undefined) {
    const ops = Array.isArray(rule.op) ? rule.op : [rule.op];
    if (!ops.includes(q.op)) return false;
  }
  // A rule without step strikes at the operation's first step; the rules
  // answered in front of the server act before any step, so theirs does not matter.
  const step = rule.step === undefined ? STEPS[q.op][0] : normalizeStep(rule.step);
  if (!FRONT_KINDS.includes(rule.kind) && step !== q.step) return false;
  if (rule.vmid !== undefined && rule.vmid !== q.vmid) return false;
  if (rule.name !== undefined && !(q.names ?? []).includes(rule.name)) return false;
  return true;
}
