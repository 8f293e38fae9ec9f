// The release's packages of the generated SDKs, each as its language's
// registry takes it: the TypeScript SDK compiled (JavaScript and types) and
// packed as the npm package @go-pve-qemu/pulumi, the Python SDK as a wheel
// and an sdist, the Go SDK laid out as a module proxy serves a version.
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "./engine-env";
import { GO_ENV, goModZipper, pythonBuilder, run, say } from "./release-tools";

/** The TypeScript SDK's npm package, as `<out>/go-pve-qemu-pulumi-sdk-<version>.tgz` (npm would name it as the dynamic provider's). */
export function nodejsSdk(sdk: string, work: string, out: string, version: string): string {
  say("compiling and packing the TypeScript SDK (@go-pve-qemu/pulumi)");
  const dir = path.join(work, "nodejs");
  fs.cpSync(path.join(sdk, "nodejs"), dir, { recursive: true });
  // Compiled with this repository's TypeScript, @types/node and @pulumi/pulumi (the versions its package.json asks for).
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  run(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", dir]);
  // The package is the compiled folder: index.js at its root is what `require` finds, index.d.ts what tsc finds.
  const bin = path.join(dir, "bin");
  for (const f of ["package.json", "README.md"]) fs.copyFileSync(path.join(dir, f), path.join(bin, f));
  fs.copyFileSync(path.join(ROOT, "LICENSE"), path.join(bin, "LICENSE"));
  const packed = run("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", work], { cwd: bin })
    .trim()
    .split("\n")
    .pop()!;
  const target = path.join(out, `go-pve-qemu-pulumi-sdk-${version}.tgz`);
  fs.renameSync(path.join(work, packed), target);
  return target;
}

/** The Python SDK's wheel and sdist, built by `python -m build` in the cached venv with no download. */
export function pythonSdk(sdk: string, work: string, out: string): string[] {
  say("building the Python SDK's wheel and sdist (pulumi_gopveqemu)");
  const dir = path.join(work, "python");
  fs.cpSync(path.join(sdk, "python"), dir, { recursive: true });
  // pyproject.toml names README.md beside it; the generator writes it into the package folder.
  fs.copyFileSync(path.join(dir, "pulumi_gopveqemu", "README.md"), path.join(dir, "README.md"));
  const before = new Set(fs.readdirSync(out));
  run(pythonBuilder(), ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", out, dir], { cwd: dir });
  return fs
    .readdirSync(out)
    .filter((f) => !before.has(f))
    .map((f) => path.join(out, f));
}

/** The Go SDK as `<out>/goproxy/<module>/@v/{list,v<version>.info,.mod,.zip}`; answers the module path. */
export function goSdk(sdk: string, out: string, version: string): string {
  say("laying out the Go SDK as a module proxy serves it");
  const gomod = fs.readFileSync(path.join(sdk, "go", "go.mod"), "utf8");
  const module = /^module\s+(\S+)/m.exec(gomod)?.[1];
  if (module === undefined) throw new Error(`${path.join(sdk, "go", "go.mod")} names no module`);
  // The version's time is the commit's, so that the same commit gives the same .info.
  let time = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  try {
    time = run("git", ["log", "-1", "--format=%cI"]).trim() || time;
  } catch {
    // not a git checkout: now
  }
  run(
    goModZipper(),
    ["-dir", path.join(sdk, "go"), "-version", `v${version}`, "-time", time, "-out", path.join(out, "goproxy")],
    {
      env: GO_ENV,
    },
  );
  return module;
}
