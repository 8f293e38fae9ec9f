// The chaos campaign's counts and its closing report (chaos.ts): rounds,
// faults by kind, interruptions and drift by kind, recoveries with their
// times, the VMs recorded unconfirmed (the documented exemption) and the
// violations.
import type { FaultRule } from "../simulator";

function count(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

const list = (m: Map<string, number>) =>
  m.size === 0
    ? "none"
    : [...m]
        .sort()
        .map(([k, v]) => `${k} ${v}`)
        .join(", ");

export class Tally {
  rounds = 0;
  violations = 0;
  private readonly faultKinds = new Map<string, number>();
  private readonly interrupts = new Map<string, number>();
  private readonly drift = new Map<string, number>();
  private readonly times: number[] = [];
  private unconfirmed = 0;
  private adoptAdvised = 0;
  private readonly findings = new Map<string, number>();

  /** A known finding seen (documented in bench/README.md's chaos section), counted apart from violations. */
  known(id: string): void {
    count(this.findings, id);
  }

  /** A VM left in no state where the error told the user to adopt it (a documented exemption). */
  leftToUser(): void {
    this.adoptAdvised++;
  }

  round(violations: number): void {
    this.rounds++;
    this.violations += violations;
  }

  faults(rules: FaultRule[]): void {
    for (const r of rules) count(this.faultKinds, `${r.op ?? "any"}/${r.kind}${r.ms ? " slow" : ""}`);
  }

  interruptions(kinds: (string | undefined)[]): void {
    for (const k of kinds) if (k) count(this.interrupts, k);
  }

  drifts(done: (string | undefined)[]): void {
    for (const d of done) if (d) count(this.drift, d.split(" ")[0]!);
  }

  recovery(seconds: number, unconfirmed: string[]): void {
    this.times.push(seconds);
    this.unconfirmed += unconfirmed.length;
  }

  report(): string {
    const sorted = [...this.times].sort((a, b) => a - b);
    const median = sorted.length === 0 ? 0 : sorted[Math.floor((sorted.length - 1) / 2)]!;
    const faults = [...this.faultKinds.values()].reduce((a, b) => a + b, 0);
    return [
      `chaos report: ${this.rounds} rounds`,
      `  faults injected ${faults}: ${list(this.faultKinds)}`,
      `  interruptions: ${list(this.interrupts)}`,
      `  changes outside Pulumi: ${list(this.drift)}`,
      `  recoveries ${sorted.length}: median ${median.toFixed(1)}s, max ${(sorted.at(-1) ?? 0).toFixed(1)}s`,
      `  VMs recorded unconfirmed, settled by an up from their settle time (docs: failure-behaviour.md): ${this.unconfirmed}`,
      `  VMs left for the user to adopt, as the error said (docs: failure-behaviour.md): ${this.adoptAdvised}`,
      `  known findings (bench/README.md, chaos), runs showing each: ${list(this.findings)}`,
      `  violations: ${this.violations}`,
    ].join("\n");
  }
}
