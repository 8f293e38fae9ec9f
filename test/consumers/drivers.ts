// How each language's consumer program (test/consumers/<lang>/) is run: the
// YAML and TypeScript programs by the Pulumi CLI, the Python and Go programs
// as Automation API inline programs (one operation per invocation).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "../../scripts/engine-env";
import { cliArgs, ensureConsumer, type Driver } from "./harness";

const PROGRAMS = path.join(ROOT, "test", "consumers");

/** A Pulumi YAML program; the YAML language host is built from github.com/pulumi/pulumi-yaml. */
/** `program`: a folder of test/consumers holding a Pulumi.yaml, or an absolute path to one. */
export function yamlDriver(program = "yaml"): Driver {
  const hostDir = ensureConsumer("yaml");
  const file = path.resolve(PROGRAMS, program, "Pulumi.yaml");
  return {
    project: /^name: (\S+)$/m.exec(fs.readFileSync(file, "utf8"))![1]!,
    configVia: "cli",
    prepare: (workDir) => {
      fs.copyFileSync(file, path.join(workDir, "Pulumi.yaml"));
      return [hostDir];
    },
    command: (op) => ({ cmd: "pulumi", args: cliArgs(op) }),
  };
}

/**
 * A TypeScript program on the generated Node.js SDK (sdk/nodejs), compiled
 * into the program's node_modules as a user's `npm install` would put it,
 * and the program type-checked against it before it runs.
 */
export function typescriptDriver(): Driver {
  return {
    project: "consumer-typescript",
    configVia: "cli",
    prepare: (workDir) => {
      for (const f of ["Pulumi.yaml", "index.ts"])
        fs.copyFileSync(path.join(PROGRAMS, "typescript", f), path.join(workDir, f));
      const sdk = path.join(ROOT, "sdk", "nodejs");
      const installed = path.join(workDir, "node_modules", "@go-pve-qemu", "pulumi");
      tsc(["-p", path.join(sdk, "tsconfig.json"), "--outDir", installed]);
      const manifest = JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")) as Record<string, unknown>;
      fs.writeFileSync(
        path.join(installed, "package.json"),
        JSON.stringify({ ...manifest, main: "index.js", types: "index.d.ts" }, null, 2),
      );
      fs.writeFileSync(
        path.join(workDir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            target: "ES2022",
            module: "commonjs",
            moduleResolution: "node10",
            noEmit: true,
            types: [],
          },
          files: ["index.ts"],
        }),
      );
      tsc(["-p", path.join(workDir, "tsconfig.json")]);
      return [];
    },
    command: (op) => ({ cmd: "pulumi", args: cliArgs(op) }),
  };
}

/**
 * A Python Automation API inline program, in a venv with the pulumi SDK from
 * PyPI, and the generated SDK (sdk/python) installed by pip into a folder of its own.
 */
export function pythonDriver(programFile?: string): Driver {
  const python = ensureConsumer("python");
  const sdk = ensureConsumer("python-sdk");
  return {
    project: "consumer-python",
    configVia: "env",
    env: { PYTHONPATH: sdk, PYTHONDONTWRITEBYTECODE: "1", ...(programFile ? { CONSUMER_PROGRAM: programFile } : {}) },
    prepare: () => [],
    command: (op) => ({ cmd: python, args: [path.join(PROGRAMS, "python", "main.py"), op] }),
  };
}

/** A Go Automation API inline program, built against the generated SDK (sdk/go) with a replace. */
export function goDriver(): Driver {
  const exe = ensureConsumer("go");
  return {
    project: "consumer-go",
    configVia: "env",
    prepare: () => [],
    command: (op) => ({ cmd: exe, args: [op] }),
  };
}

function tsc(args: string[]): void {
  try {
    execFileSync(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), ...args], {
      cwd: ROOT,
      stdio: "pipe",
      encoding: "utf8",
    });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`tsc ${args.join(" ")}:\n${err.stdout ?? ""}${err.stderr ?? ""}`, { cause: e });
  }
}
