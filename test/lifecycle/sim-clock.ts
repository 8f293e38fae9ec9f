// The lifecycle's clock in the simulator's time: the simulator runs `speed`
// times faster than real time, so this clock does too. The lifecycle's bounds
// are the real server's (a 10-minute SSH wait, a 30-minute download bound),
// yet a test runs in seconds, and its assertions are made in simulated time,
// never in wall time.
import type { Clock } from "../../provider/lifecycle/core/context";
import { sleep } from "../../provider/lifecycle/core/context";

export interface SimClock extends Clock {
  /** simulated ms since the clock was made */
  elapsed(): number;
  /** simulated ms the lifecycle chose to wait: its own decisions, whatever the machine's load */
  slept(): number;
}

export function simClock(speed: number): SimClock {
  // A real date: times it gives end up in VM names (the install's start) and are read back.
  const start = Date.UTC(2026, 0, 1);
  const t0 = performance.now();
  const now = (): number => start + (performance.now() - t0) * speed;
  let slept = 0;
  return {
    now,
    sleep: (ms, signal) => {
      slept += ms;
      return sleep(ms / speed, signal);
    },
    elapsed: () => now() - start,
    slept: () => slept,
  };
}
