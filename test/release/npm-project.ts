// An empty TypeScript Pulumi project as an npm user makes one: a package.json
// and a project .npmrc naming the registry (the loopback npm stand-in), the
// packages installed by name with an empty npm cache of its own, a program,
// and a stack whose config names the simulator; then `pulumi up` / `destroy`
// by the engine's command line, Node.js 22 on PATH beside the engine (a
// TypeScript program's runtime), the plugin nowhere on it.
import * as fs from "node:fs";
import * as path from "node:path";
import { npmEnv, type NpmRegistry } from "./npm-registry";
import { runToEnd } from "./by-name";

export interface NpmProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** What `npm install` printed. */
  installed: string;
  run(op: "up" | "destroy"): Promise<{ code: number | null; output: string }>;
  /** Every tarball URL the project's package-lock.json resolved. */
  resolved(): string[];
}

/** The project `name` under `dir` with `program` as index.ts and `config` as the stack's; `packages` installed by name. */
export async function npmProject(opts: {
  dir: string;
  name: string;
  registry: NpmRegistry;
  firstRun: NodeJS.ProcessEnv;
  packages: string[];
  program: string;
  config: Record<string, string>;
}): Promise<NpmProject> {
  const dir = path.join(opts.dir, opts.name);
  fs.mkdirSync(dir, { recursive: true });
  // Node.js 22 alone (a link to this process's), in front of the first run's PATH.
  const nodeDir = path.join(opts.dir, "node22");
  fs.mkdirSync(nodeDir, { recursive: true });
  if (!fs.existsSync(path.join(nodeDir, "node"))) fs.symlinkSync(process.execPath, path.join(nodeDir, "node"));
  fs.writeFileSync(path.join(opts.dir, "user.npmrc"), "");
  const env: NodeJS.ProcessEnv = {
    ...npmEnv({
      npm_config_cache: path.join(opts.dir, "npm-cache"),
      npm_config_userconfig: path.join(opts.dir, "user.npmrc"),
    }),
    ...Object.fromEntries(Object.entries(opts.firstRun).filter(([k]) => !/^npm_/i.test(k))),
    PATH: `${nodeDir}${path.delimiter}${opts.firstRun.PATH}`,
  };
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: opts.name, version: "0.0.0", private: true }),
  );
  fs.writeFileSync(path.join(dir, ".npmrc"), `registry=${opts.registry.url}/\n`);
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${opts.name}\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n`,
  );
  fs.writeFileSync(path.join(dir, "index.ts"), opts.program);
  // The README's tsconfig.json for a TypeScript project (CommonJS, node's resolution; the engine runs it with ts-node).
  const compilerOptions = {
    strict: true,
    target: "es2022",
    module: "commonjs",
    moduleResolution: "node10",
    esModuleInterop: true,
    skipLibCheck: true,
  };
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["index.ts"] }));
  const install = await runToEnd("npm", ["install", ...opts.packages], dir, env);
  if (install.code !== 0) throw new Error(`npm install ${opts.packages.join(" ")}:\n${install.output}`);
  const init = await runToEnd("pulumi", ["stack", "init", "dev", "--non-interactive"], dir, env);
  if (init.code !== 0) throw new Error(`pulumi stack init:\n${init.output}`);
  const config = Object.entries(opts.config).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`);
  fs.writeFileSync(path.join(dir, "Pulumi.dev.yaml"), `config:\n${config.join("")}`);
  return {
    dir,
    env,
    installed: install.output,
    run: (op) => runToEnd("pulumi", [op, "--yes", "--skip-preview", "--non-interactive", "--stack", "dev"], dir, env),
    resolved: () => {
      const lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")) as {
        packages: Record<string, { resolved?: string }>;
      };
      return Object.entries(lock.packages)
        .filter(([at]) => at !== "")
        .map(([, e]) => e.resolved ?? "");
    },
  };
}
