// Ctrl-C as a user gives it to `pulumi up` in a terminal, for the end-to-end
// tests of cancelled deployments.
import { execFileSync, spawn } from "node:child_process";
import { alive } from "../../scripts/cli-stack";
import { orphans, type Fleet } from "./harness";

/** Three installs: two with server-picked VMIDs (which wait for each other's VMID), one pinned. */
export const THREE = {
  a: { os: "ubuntu", version: "24.04" },
  b: { os: "ubuntu", version: "24.04", name: "b", vmid: 171 },
  c: { os: "debian", version: "12" },
};

/**
 * The Ctrl-C comes once the server has begun b's install (VMID 171): this
 * machine's install journal names a pinned VMID before its request is sent,
 * and a deployment stopped in between leaves an entry for an install the
 * server never had, which the next up waits for up to the image-download
 * bound (30 min: the server shows no install before its VM exists). On a busy
 * machine the first install to start (the test's old moment) could come
 * before b's request left; that next up then outlived the test's timeout.
 */
export const pinnedInstallBegun = (fleet: Fleet) => fleet.sim.installs().some((i) => i.vmid === 171);

/** The server's requests so far by operation, the simulator's own (admin, not found) left out. */
function serverRequests(sim: { stats(): { requests: Record<string, number> } }): Record<string, number> {
  const { admin: _admin, notFound: _notFound, ...ops } = sim.stats().requests;
  return ops;
}

/**
 * What `op` asked of the server: how many reads (list, status, health) and
 * which other requests. A quick up after a clean preview is told by that, not
 * by the clock: it looks as the preview looked, where a wait on an unsettled
 * install would poll the server for its whole settle wait.
 */
export async function requestsOf<T>(
  sim: { stats(): { requests: Record<string, number> } },
  op: () => Promise<T>,
): Promise<{ result: T; reads: number; writes: string[] }> {
  const before = serverRequests(sim);
  const result = await op();
  const after = serverRequests(sim);
  let reads = 0;
  const writes: string[] = [];
  for (const [k, n] of Object.entries(after)) {
    const more = n - (before[k] ?? 0);
    if (more <= 0) continue;
    if (["list", "status", "health"].includes(k)) reads += more;
    else writes.push(k);
  }
  return { result, reads, writes };
}

/** The three VMs are in state once each, the server's VMs are the state's, and no operation is pending. */
export function expectStateIsServer(f: Fleet): void {
  const ids = Object.values(f.resources()).map((r) => Number(r.id));
  expect(ids).toHaveLength(3);
  expect(new Set(ids).size).toBe(3);
  expect(ids).toContain(171);
  expect(orphans(f)).toEqual([]);
  expect(f.pendingOperations()).toEqual([]);
}

/** `pulumi up` in its own process group, as in a terminal, given two Ctrl-Cs once `ready`: pulumi and the provider end. */
export async function doubleCtrlC(fleet: Fleet, ready: () => boolean): Promise<string> {
  const pulumi = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
    cwd: fleet.workDir,
    env: { ...process.env, ...fleet.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let printed = "";
  pulumi.stdout!.on("data", (d: Buffer) => (printed += d.toString()));
  pulumi.stderr!.on("data", (d: Buffer) => (printed += d.toString()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => pulumi.on("exit", (c) => resolve((code = c))));
  await until(ready, "the moment for the Ctrl-Cs");
  const provider = await until(() => childProcess(pulumi.pid!, "cmd/dynamic-provider"), "the dynamic provider");

  process.kill(-pulumi.pid!, "SIGINT");
  // The engine says it is cancelling and waits; the second one stops it. On a busy machine the first may
  // already have ended it (the program, in the same process group, ends on it too): then there is no second.
  const cancelling = () => /\^C received; cancelling/.test(printed);
  await until(
    () => cancelling() || code !== undefined,
    "pulumi to say it is cancelling, or to end",
    () => printed,
  );
  if (code === undefined) process.kill(-pulumi.pid!, "SIGINT");
  expect(await exited).not.toBe(0);
  await until(() => !alive(provider), `the dynamic provider (${provider}) to end`);
  return printed;
}

function childProcess(parent: number, pattern: string): number | undefined {
  try {
    const out = execFileSync("pgrep", ["-P", String(parent), "-f", pattern], { encoding: "utf8" });
    const pid = Number(out.trim().split("\n")[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Polls until `f` answers something truthy. The test's own timeout bounds it;
 * every 30 s it says what it still waits for (and `detail()`), so that a test
 * that times out on a busy machine shows where it stood.
 */
export async function until<T>(
  f: () => T | undefined | false,
  what = "a condition",
  detail?: () => string,
): Promise<T> {
  const start = Date.now();
  let said = start;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() - said >= 30_000) {
      said = Date.now();
      const more = detail?.().slice(-600) ?? "";
      console.warn(`still waiting after ${Math.round((said - start) / 1000)} s for ${what}${more ? `:\n${more}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
