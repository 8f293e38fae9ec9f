// The top entries of V8 CPU profiles (`node --cpu-prof`), by self time, one
// table per kind of process: the dynamic provider (its profile holds
// @pulumi/pulumi/cmd/dynamic-provider), the program (the language host's
// node process) and anything else. Profiles of one kind are added up, so a
// run of several `pulumi` operations gives one table per kind.
//
// Run: `node dist/bench/profile-top.js DIR [--top N]` (DIR: one folder that engine-overhead
// --profile wrote, e.g. bench/out/prof/vm-n100).
import * as fs from "node:fs";
import * as path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith(".cpuprofile") ? [p] : [];
  });
}

/** Shortens a script URL to its package-relative tail: node_modules/<pkg>/..., or the project's own path. */
function where(url: string, line: number): string {
  if (!url) return "";
  const u = url.replace(/^file:\/\//, "");
  const nm = u.lastIndexOf("node_modules/");
  const tail = nm >= 0 ? u.slice(nm + "node_modules/".length) : u.replace(/^.*\/(dist|bench|provider)\//, "$1/");
  return `${tail}:${line + 1}`;
}

/** The package a frame belongs to: node_modules/<pkg>, the project's folder, node itself, or V8's own entries. */
function packageOf(url: string, fn: string): string {
  if (!url) return fn.startsWith("(") ? fn : "(native)";
  const u = url.replace(/^file:\/\//, "");
  const nm = /.*node_modules\/((@[^/]+\/)?[^/]+)/.exec(u);
  if (nm) return nm[1]!;
  if (u.startsWith("node:")) return "node";
  const own = /\/(dist\/)?(provider|simulator|bench|scripts)\/([^/]+)/.exec(u);
  return own ? `${own[2]}/${own[3]}` : u;
}

function kindOf(file: string, p: Profile): string {
  // profile-hook.ts names its files <kind>.<pid>.<slice>.cpuprofile
  const named = /^(provider|program|other)\./.exec(path.basename(file));
  if (named) return named[1]!;
  const urls = p.nodes.map((n) => n.callFrame.url);
  if (urls.some((u) => u.includes("cmd/dynamic-provider"))) return "provider";
  if (urls.some((u) => u.includes("ts-node") || u.includes("runtime/run"))) return "program";
  return "other";
}

function main(): void {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: profile-top DIR [--top N]");
  const i = process.argv.indexOf("--top");
  const top = i >= 0 ? Number(process.argv[i + 1]) : 15;
  const byKind = new Map<
    string,
    { total: number; count: number; self: Map<string, number>; pkg: Map<string, number> }
  >();
  for (const f of files(dir)) {
    const p = JSON.parse(fs.readFileSync(f, "utf8")) as Profile;
    const kind = kindOf(f, p);
    const acc = byKind.get(kind) ?? {
      total: 0,
      count: 0,
      self: new Map<string, number>(),
      pkg: new Map<string, number>(),
    };
    byKind.set(kind, acc);
    acc.count++;
    const nodes = new Map(p.nodes.map((n) => [n.id, n]));
    p.samples.forEach((id, k) => {
      const us = p.timeDeltas[k] ?? 0;
      const n = nodes.get(id)!;
      // The inspector's own work of handing over each slice (profile-hook.ts) is not the process's.
      const fn = n.callFrame.url === "node:inspector" ? "(profiler)" : n.callFrame.functionName || "(anonymous)";
      const key = `${fn}  ${where(n.callFrame.url, n.callFrame.lineNumber)}`;
      acc.self.set(key, (acc.self.get(key) ?? 0) + us);
      const pkg = packageOf(n.callFrame.url, fn);
      acc.pkg.set(pkg, (acc.pkg.get(pkg) ?? 0) + us);
      acc.total += us;
    });
  }
  for (const [kind, acc] of byKind) {
    console.log(`${kind}: ${acc.count} profile(s), ${(acc.total / 1000).toFixed(0)} ms sampled`);
    const rows = [...acc.self].sort((a, b) => b[1] - a[1]).slice(0, top);
    for (const [key, us] of rows)
      console.log(
        `  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / acc.total).toFixed(1).padStart(5)}%  ${key}`,
      );
    const pkgs = [...acc.pkg].sort((a, b) => b[1] - a[1]).slice(0, 14);
    console.log(`  by package: ${pkgs.map(([k, us]) => `${k} ${(us / 1000).toFixed(0)} ms`).join(", ")}`);
  }
}

main();
