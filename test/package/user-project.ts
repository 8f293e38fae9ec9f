// A Pulumi TypeScript project as a user would start it (the README's
// "Using it in your own project"), and the machine's own Node.js.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);

/** Writes Pulumi.yaml, package.json, tsconfig.json and index.ts into `<parent>/project`; returns that folder. */
export function userProject(parent: string, tarball: string): string {
  const dir = path.join(parent, "project");
  fs.mkdirSync(dir);
  const own = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const files: Record<string, string> = {
    "Pulumi.yaml": "name: my-vms\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
    "package.json": JSON.stringify(
      {
        name: "my-vms",
        private: true,
        main: "index.ts",
        dependencies: {
          "go-pve-qemu-pulumi": `file:${tarball}`,
          // the engine here is built from this version
          "@pulumi/pulumi": own.devDependencies["@pulumi/pulumi"],
        },
        devDependencies: {
          "@types/node": own.devDependencies["@types/node"],
          typescript: own.devDependencies.typescript,
        },
      },
      null,
      2,
    ),
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "commonjs",
        moduleResolution: "node10",
        esModuleInterop: true,
        skipLibCheck: true,
      },
      files: ["index.ts"],
    }),
    "index.ts": [
      'import { Vm } from "go-pve-qemu-pulumi";',
      "",
      'const web = new Vm("web", { os: "ubuntu", version: "24.04", cpu: 2 });',
      "export const ip = web.ip;",
      "",
    ].join("\n"),
  };
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** The first `node` on PATH outside any node_modules/.bin: the Node.js the machine itself runs. */
export async function machineNode(): Promise<{ path: string; version: string; major: number }> {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter((d) => d !== "" && !d.includes("node_modules"));
  for (const dir of dirs) {
    const candidate = path.join(dir, "node");
    if (!fs.existsSync(candidate)) continue;
    const { stdout } = await exec(candidate, ["-p", "process.versions.node"]);
    const version = stdout.trim();
    return { path: candidate, version, major: Number(version.split(".")[0]) };
  }
  throw new Error(`no node on PATH outside node_modules: ${dirs.join(", ")}`);
}
