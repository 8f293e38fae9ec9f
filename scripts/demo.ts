// npm run demo: the quickstart (Pulumi.yaml + index.ts) against the simulator.
//
//   npm run demo                 pulumi up --yes on the quickstart
//   npm run demo -- destroy      pulumi destroy --yes
//   npm run demo -- preview      pulumi preview
//   options: --port 8765 (simulator port), --speed 20 (simulated time runs 20x faster),
//            --dir <folder> (the program: Pulumi.yaml + index.ts; default the repository root)
//
// The simulator keeps its VMs in <dir>/.sim-state/demo.json and Pulumi keeps
// its state in <dir>/.pulumi-state/, so runs build on each other like a real
// server. `npm run demo` does the set-up first (scripts/setup.sh).
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startSimulator } from "../simulator";
import { ROOT, engineEnv } from "./engine-env";

const STACK = "demo";

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      port: { type: "string", default: "8765" },
      speed: { type: "string", default: "20" },
      dir: { type: "string", default: ROOT },
    },
  });
  const dir = path.resolve(values.dir);
  const action = positionals[0] ?? "up";
  if (!["up", "destroy", "preview", "refresh"].includes(action)) {
    throw new Error(`unknown action "${action}": use up, preview, refresh or destroy`);
  }

  const stateDir = path.join(dir, ".pulumi-state");
  fs.mkdirSync(path.join(stateDir, "backend"), { recursive: true });
  fs.mkdirSync(path.join(dir, ".sim-state"), { recursive: true });
  const env = {
    ...process.env,
    ...engineEnv({ backendDir: path.join(stateDir, "backend"), homeDir: path.join(stateDir, "home") }),
  };

  const sim = await startSimulator({
    port: Number(values.port),
    speed: Number(values.speed),
    stateFile: path.join(dir, ".sim-state", "demo.json"),
  });
  console.log(`demo: go-pve-qemu simulator at ${sim.url} (speed x${values.speed}, state .sim-state/demo.json)`);
  try {
    const pulumi = (...args: string[]) => run("pulumi", [...args, "--non-interactive"], dir, env);
    await pulumi("stack", "select", STACK, "--create");
    await pulumi("config", "set", "goPveQemu:endpoint", sim.url);
    if (action === "up") {
      await pulumi("up", "--yes");
      await pulumi("stack", "output");
      console.log(`\ndemo: done. Tear it down with:  npm run demo -- destroy`);
    } else if (action === "destroy") {
      await pulumi("destroy", "--yes");
    } else if (action === "refresh") {
      await pulumi("refresh", "--yes");
    } else {
      await pulumi("preview", "--diff");
    }
  } finally {
    await sim.close();
  }
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the simulator serves from this same process.
    const child = spawn(cmd, args, { cwd, env, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args[0]} exited with ${code}`))));
  });
}

main().catch((err: unknown) => {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
