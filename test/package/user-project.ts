// A Pulumi TypeScript project as a user would start it (the README's
// "Install and a first `pulumi up`": its TypeScript quickstart and "The
// TypeScript project").
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "../../scripts/engine-env";

/** The starter files of the README's TypeScript quickstart and "The TypeScript project", by name. */
export function readmeStarter(): Record<string, string> {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("### TypeScript: the dynamic provider");
  const section = readme.slice(start, readme.indexOf("\n## ", start));
  const files: Record<string, string> = {};
  for (const m of section.matchAll(/`([\w-]+\.[\w.]+)`(?: \([^)]*\))?:\n\n```\w+\n([\s\S]*?)```/g))
    files[m[1]!] = m[2]!;
  // A block that names its file in its first line (`// index.ts`).
  for (const m of section.matchAll(/```ts\n\/\/ ([\w-]+\.ts)\n([\s\S]*?)```/g)) files[m[1]!] = `// ${m[1]}\n${m[2]!}`;
  return files;
}

/**
 * Writes the README's starter project into `<parent>/project` and returns that
 * folder. package.json names `tarball`, and the @pulumi/pulumi this
 * repository's engine is built from (the README's range allows it).
 */
export function userProject(parent: string, tarball: string): string {
  const dir = path.join(parent, "project");
  fs.mkdirSync(dir);
  const files = readmeStarter();
  const own = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const pkg = JSON.parse(files["package.json"]!);
  pkg.dependencies["go-pve-qemu-pulumi"] = `file:${tarball}`;
  pkg.dependencies["@pulumi/pulumi"] = own.devDependencies["@pulumi/pulumi"];
  files["package.json"] = JSON.stringify(pkg, null, 2);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}
