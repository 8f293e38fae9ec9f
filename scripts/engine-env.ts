// How this project runs the Pulumi engine: which binaries, which backend,
// which environment. Used by the demo, the end-to-end tests and the
// benchmarks, so they all drive the same engine the same way.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The repository root (this file is scripts/engine-env.ts, or dist/scripts/engine-env.js). */
export const ROOT = findRoot(__dirname);

function findRoot(dir: string): string {
  // Walk up to the folder that holds engine/versions.env.
  let d = dir;
  while (!fs.existsSync(path.join(d, "engine", "versions.env"))) {
    const parent = path.dirname(d);
    if (parent === d) throw new Error(`cannot find the project root above ${dir}`);
    d = parent;
  }
  return d;
}

let engineBin: string | undefined;

/**
 * The folder that holds pulumi, pulumi-language-nodejs and the dynamic
 * provider launcher; built on first use (progress on stderr), cached after.
 */
export function ensureEngine(): string {
  engineBin ??= process.env.GO_PVE_QEMU_ENGINE_BIN;
  engineBin ??= execFileSync("bash", [path.join(ROOT, "scripts", "ensure-engine.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  }).trim();
  return engineBin;
}

export interface EngineEnvOptions {
  /** Folder of the local file backend (state lives here). */
  backendDir: string;
  /** Folder for the engine's own home (plugins, credentials); kept apart from ~/.pulumi. */
  homeDir: string;
  /** Passphrase of the passphrase secrets provider. */
  passphrase?: string;
}

/** Environment for a `pulumi` run: local file backend, passphrase secrets, no network, no update checks. */
export function engineEnv(opts: EngineEnvOptions): Record<string, string> {
  const bin = ensureEngine();
  return {
    // bin/: the resource plugin's launcher (pulumi-resource-gopveqemu), found by the engine on PATH.
    PATH: [bin, path.join(ROOT, "bin"), path.join(ROOT, "node_modules", ".bin"), process.env.PATH ?? ""].join(
      path.delimiter,
    ),
    PULUMI_HOME: opts.homeDir,
    // This machine's install journal kept with the engine's home: a test's stacks never meet another's entries.
    GO_PVE_QEMU_JOURNAL_DIR: path.join(opts.homeDir, "install-journal"),
    PULUMI_BACKEND_URL: `file://${opts.backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? process.env.PULUMI_CONFIG_PASSPHRASE ?? "go-pve-qemu-demo",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    // Pulumi runs TypeScript programs through ts-node; this project type-checks with tsc instead.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    // Never reach out to the Pulumi Cloud.
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
  };
}
