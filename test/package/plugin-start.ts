// Starting the resource plugin's launcher as the engine does, for the
// packaging tests: what it prints first (the port it serves on), then it is
// stopped.
import { spawn } from "node:child_process";

/** The launcher's first line on stdout (or how it exited before one), run in `cwd` with this PATH. */
export async function pluginFirstLine(launcher: string, cwd: string, pathEntries: string[]): Promise<string> {
  const child = spawn(launcher, [], {
    cwd,
    env: { ...process.env, PATH: pathEntries.join(":") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  // A plugin that starts prints the port it serves on, as the engine reads it, and keeps serving.
  const first = await Promise.race([
    new Promise<string>((resolve) => child.stdout.on("data", () => /\n/.test(out) && resolve(out))),
    exited.then((code) => `exited ${code}: ${out}`),
  ]);
  child.kill("SIGTERM");
  await exited;
  return first;
}
