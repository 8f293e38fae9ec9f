// What the two soak runs (install-soak.ts, update-soak.ts) share: their
// numeric command-line options and the lifecycle's clock in the simulator's
// time (the simulator runs `speed` times faster than the real server).
import type { Clock } from "../provider/lifecycle/core/context";
import { sleep } from "../provider/lifecycle/core/context";

/** `--name N` as a positive whole number, else `fallback`. */
export function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? Number(process.argv[i + 1]) : NaN;
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

export function simClock(speed: number): Clock {
  const t0 = performance.now();
  return { now: () => 1_000_000 + (performance.now() - t0) * speed, sleep: (ms, s) => sleep(ms / speed, s) };
}
