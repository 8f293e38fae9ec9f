// engine-overhead's --baseline: which other checkout's build runs beside
// this one's, and each aim's figure for it next to this checkout's. The runs
// themselves are engine-overhead's (its vm-base and plugin-base kinds).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** --baseline DIR: a checkout of this repository whose dist/ is built (its commit is printed). */
export function baselineArg(given: string | undefined): { dir: string; commit: string } | undefined {
  if (given === undefined) return undefined;
  const dir = path.resolve(given);
  const pkg = path.join(dir, "package.json");
  const name = fs.existsSync(pkg) ? (JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name : undefined;
  if (name !== "go-pve-qemu-pulumi" || !fs.existsSync(path.join(dir, "dist", "provider", "plugin", "entry.js")))
    throw new Error(
      `--baseline ${given}: not a built checkout of go-pve-qemu-pulumi (package.json and dist/ wanted; ` +
        `git worktree add DIR <commit>, then in DIR: GO_PVE_QEMU_SETUP_ENGINE=0 bash scripts/setup.sh)`,
    );
  let commit = "unknown commit";
  try {
    commit = execFileSync("git", ["-C", dir, "log", "-1", "--format=%h %s"], { encoding: "utf8" }).trim();
  } catch {
    // Not a git checkout: the folder alone names it.
  }
  return { dir, commit };
}

/** One aim's figure: `<name>` measured `value`, aimed at `<= bound`. */
export interface Figure {
  name: string;
  value: number;
  bound: number;
}

/**
 * The baseline's figure of each aim beside this checkout's, from the same
 * repetitions: `BASELINE <name>: measured <baseline> this <mine> <verdict>`.
 * Not aims of their own: what a change did to each one.
 */
export function printBaselineFigures(commit: string, mine: readonly Figure[], base: readonly Figure[]): void {
  console.log("");
  console.log(`  each aim's figure for the baseline (${commit}), from the same repetitions:`);
  for (const [i, b] of base.entries()) {
    const m = mine[i]!;
    const verdict = m.value <= b.value ? "no worse" : `worse by ${(m.value - b.value).toFixed(2)}`;
    console.log(`  BASELINE ${b.name}: measured ${b.value.toFixed(2)} this ${m.value.toFixed(2)} ${verdict}`);
  }
}
