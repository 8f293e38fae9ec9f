// The shape of provider/ in numbers: folders, files, lines, the longest
// files, and the imports that cross from one folder into another. With
// --check it also fails on what the layout rules forbid that no lint rule
// can see: two files sharing a base name (the `index.ts` entry points aside).
// Imports are read with TypeScript's own pre-processor.
//
//   node dist/scripts/layout.js [--root provider] [--check]
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";

interface FileFacts {
  file: string;
  lines: number;
  imports: string[];
}

/** The longest a file of provider/ may be (eslint's max-lines holds it; counted here for the report). */
const MAX_LINES = 250;

function filesOf(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

function factsOf(file: string): FileFacts {
  const text = fs.readFileSync(file, "utf8");
  const imports = ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => resolve(path.dirname(file), spec))
    .filter((f): f is string => f !== undefined);
  return { file, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0), imports };
}

function resolve(dir: string, spec: string): string | undefined {
  const base = path.join(dir, spec);
  for (const candidate of [`${base}.ts`, path.join(base, "index.ts")]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

/** A layer: a folder of the root, or of the lifecycle (whose folders are layers of their own); the root's own files. */
function layerOf(file: string): string {
  const parts = path.dirname(file).split(path.sep);
  return parts.slice(0, parts[1] === "lifecycle" && parts.length > 2 ? 3 : 2).join(path.sep);
}

function main(argv: string[]): number {
  const rootAt = argv.indexOf("--root");
  const root = rootAt >= 0 ? argv[rootAt + 1]! : "provider";
  const all = filesOf(root).map(factsOf);
  const folders = new Set(all.map((f) => path.dirname(f.file)));
  const crossing = all.flatMap((f) => f.imports.filter((i) => path.dirname(i) !== path.dirname(f.file)));
  // An import into another layer that does not land on the layer's index.ts goes past its entry point.
  const pastEntry = all.flatMap((f) =>
    f.imports.filter(
      (i) => layerOf(i) !== layerOf(f.file) && layerOf(i) !== root && i !== path.join(layerOf(i), "index.ts"),
    ),
  );
  const lines = all.reduce((n, f) => n + f.lines, 0);
  const out: string[] = [];
  out.push(`${root}: ${folders.size} folders, ${all.length} files, ${lines} lines`);
  out.push(
    `imports: ${all.reduce((n, f) => n + f.imports.length, 0)} between files, ${crossing.length} crossing a folder, ${pastEntry.length} of them past an entry point`,
  );
  const long = all.filter((f) => f.lines > MAX_LINES);
  out.push(`files over ${MAX_LINES} lines: ${long.length}`);
  out.push("longest files:");
  for (const f of [...all].sort((a, b) => b.lines - a.lines).slice(0, 5)) out.push(`  ${f.lines}  ${f.file}`);
  out.push("files per folder:");
  for (const dir of [...folders].sort())
    out.push(`  ${all.filter((f) => path.dirname(f.file) === dir).length}  ${dir}`);
  const byName = new Map<string, string[]>();
  for (const f of all) {
    const name = path.basename(f.file);
    if (name !== "index.ts") byName.set(name, [...(byName.get(name) ?? []), f.file]);
  }
  const shared = [...byName.entries()].filter(([, files]) => files.length > 1);
  out.push(`base names shared by two files or more: ${shared.length}`);
  for (const [name, files] of shared) out.push(`  ${name}: ${files.join(", ")}`);
  const failed = shared.length > 0 || pastEntry.length > 0;
  if (!argv.includes("--check")) {
    process.stdout.write(`${out.join("\n")}\n`);
    return 0;
  }
  // In lint: one line when the layout is in order, the whole picture when it is not.
  if (failed)
    process.stdout.write(`${out.join("\n")}\n${pastEntry.map((i) => `  past an entry point: ${i}`).join("\n")}\n`);
  else
    process.stdout.write(
      `layout: ${all.length} files in ${folders.size} folders, no shared base name, no import past an entry point\n`,
    );
  return failed ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
