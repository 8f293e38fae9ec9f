// Seeded randomness (mulberry32): every random choice of the simulator (probe
// latencies, corruption at the measured rates) comes from a seed, so a test can
// pin what a run does and a soak run can be replayed.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Independent streams from one seed, one per purpose, so one kind of draw never shifts another. */
export function rngFor(seed: number, purpose: "probe" | "rates"): Rng {
  return new Rng((seed ^ (purpose === "probe" ? 0x9e3779b9 : 0x85ebca6b)) >>> 0);
}
