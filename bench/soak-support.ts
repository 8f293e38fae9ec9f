// What the soak runs (install-soak.ts, update-soak.ts) and verdict-time.ts
// share: their command-line options and the lifecycle's clock in the simulator's
// time (the simulator runs `speed` times faster than the real server).
import type { Clock } from "../provider/lifecycle/core/context";
import { sleep } from "../provider/lifecycle/core/context";

/** The word after a flag (`--only lost`), if given. */
export function textArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** `--name N` as a positive whole number, else `fallback`. */
export function arg(name: string, fallback: number): number {
  const v = Number(textArg(name)); // NaN when not given
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

export function simClock(speed: number): Clock {
  const t0 = performance.now();
  return { now: () => 1_000_000 + (performance.now() - t0) * speed, sleep: (ms, s) => sleep(ms / speed, s) };
}
