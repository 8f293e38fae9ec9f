// Ctrl-C as a user gives it to `pulumi up` in a terminal, for the end-to-end
// tests of cancelled deployments.
import { execFileSync, spawn } from "node:child_process";
import { alive } from "../../scripts/cli-stack";
import type { Fleet } from "./harness";

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
  const exited = new Promise<number | null>((resolve) => pulumi.on("exit", resolve));
  await until(ready);
  const provider = await until(() => childProcess(pulumi.pid!, "cmd/dynamic-provider"));

  process.kill(-pulumi.pid!, "SIGINT");
  // The engine says it is cancelling and waits; the second one stops it.
  await until(() => /\^C received; cancelling/.test(printed));
  process.kill(-pulumi.pid!, "SIGINT");
  expect(await exited).not.toBe(0);
  await until(() => !alive(provider));
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

/** Polls until `f` answers something truthy (the test's own timeout bounds it). */
export async function until<T>(f: () => T | undefined | false): Promise<T> {
  for (;;) {
    const v = f();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}
