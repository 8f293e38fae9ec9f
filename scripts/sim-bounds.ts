// The provider's bounds of the server's steps (goPveQemu:*BoundMs) for a
// simulator that runs `speed` times faster than the real server. The
// defaults are the real server's (a 10-minute SSH wait, a 20-minute init
// script bound, ...); against a simulator at speed 50 the same steps take a
// fiftieth of that, and a lost stream or a VM taken over after a killed
// deployment is then settled in seconds instead of half an hour. Each bound
// keeps a floor for the requests' own latency.
import { DEFAULT_TIMING } from "../provider/lifecycle";

const BOUND_KEYS = [
  "imageDownloadBoundMs",
  "initScriptBoundMs",
  "migrateBoundMs",
  "commandBoundMs",
  "sshWaitBoundMs",
] as const;

/** Never less than this, whatever the speed: a request and a poll round fit in it. */
const FLOOR_MS = 2_000;

/** `goPveQemu:<key>` -> milliseconds, for `pulumi config set` or an Automation API config map. */
export function simulatedBounds(speed: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of BOUND_KEYS) {
    out[`goPveQemu:${key}`] = String(Math.max(FLOOR_MS, Math.ceil(DEFAULT_TIMING[key] / speed)));
  }
  return out;
}
