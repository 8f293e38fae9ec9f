// `npm run bench`: runs every benchmark, one after another, each in its own
// process (so none inherits another's warm caches or leftover state), passes
// their output through, and ends with one line per aim:
//   AIM <name>: measured <value> aim <bound> met|missed
// A missed aim is a finding, not a failure: the exit code is 0 unless a
// benchmark crashed (or a correctness check inside one failed).
//
// Run: `npm run bench [-- --quick]` (--quick: smaller N, one repetition: a smoke run).
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "../scripts/engine-env";
import { QUICK, cleanWork } from "./common";

interface Bench {
  name: string;
  file: string;
  args: string[];
  /** A diagnostic: its figures explain others, it has no aim of its own. */
  noAims?: boolean;
}

const BENCHES: Bench[] = [
  { name: "engine-overhead", file: "engine-overhead.js", args: [] },
  { name: "parallel-installs", file: "parallel-installs.js", args: [] },
  { name: "rollout", file: "rollout.js", args: [] },
  { name: "journal-cost", file: "journal-cost.js", args: [] },
  // Written separately; its own flags (--mb, --reps) make the smoke run.
  { name: "stream-reader", file: "stream-reader.js", args: QUICK ? ["--mb", "4", "--reps", "3"] : [] },
  { name: "state-size", file: "state-size.js", args: [] },
  { name: "ctrl-c", file: "ctrl-c.js", args: [] },
  { name: "checkpoint-cost", file: "checkpoint-cost.js", args: [], noAims: true },
];

const OUT = path.join(ROOT, "bench", "out");
const log: string[] = [];

function print(line: string): void {
  console.log(line);
  log.push(line);
}

function runOne(b: Bench): Promise<{ code: number; aims: string[]; ms: number }> {
  const aims: string[] = [];
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, b.file), ...b.args, ...(QUICK ? ["--quick"] : [])], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines = (stream: NodeJS.ReadableStream, onLine: (l: string) => void): void => {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop()!;
        parts.forEach(onLine);
      });
      stream.on("end", () => rest && onLine(rest));
    };
    lines(child.stdout, (l) => {
      print(`  ${l}`);
      if (l.startsWith("AIM ")) aims.push(l);
    });
    lines(child.stderr, (l) => {
      // Progress and the engine's "engine: cached pulumi ..." go to stderr: show them, keep them out of the record.
      process.stderr.write(`  ${l}\n`);
      if (!/^(engine: |[\w-]+: repetition )/.test(l)) log.push(`  [stderr] ${l}`);
    });
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), aims, ms: performance.now() - t0 }),
    );
  });
}

async function main(): Promise<void> {
  cleanWork();
  const t0 = performance.now();
  print(
    `go-pve-qemu-pulumi benchmarks${QUICK ? " (--quick smoke run)" : ""}, ${new Date().toISOString()}, node ${process.version}`,
  );
  const results: { b: Bench; code: number; aims: string[]; ms: number }[] = [];
  for (const b of BENCHES) {
    print("");
    if (!fs.existsSync(path.join(__dirname, b.file))) {
      print(`== ${b.name}: skipped (dist/bench/${b.file} not built)`);
      results.push({ b, code: 0, aims: [], ms: 0 });
      continue;
    }
    print(`== ${b.name}`);
    const r = await runOne(b);
    print(`== ${b.name}: ${(r.ms / 1000).toFixed(0)} s${r.code === 0 ? "" : `, EXIT CODE ${r.code}`}`);
    results.push({ b, ...r });
  }
  cleanWork();

  print("");
  print(`== summary (${((performance.now() - t0) / 1000).toFixed(0)} s in all)`);
  for (const r of results) {
    for (const a of r.aims) print(a);
    if (r.code !== 0) print(`CRASH ${r.b.name}: exit code ${r.code} (see its output above)`);
    else if (r.aims.length === 0 && r.ms > 0 && !r.b.noAims) print(`NOTE ${r.b.name}: printed no AIM line`);
  }
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, QUICK ? "last-quick-run.txt" : "last-run.txt"), log.join("\n") + "\n");
  if (results.some((r) => r.code !== 0)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
