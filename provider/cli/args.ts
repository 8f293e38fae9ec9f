// The command line of `discover`, checked before anything is asked of the
// server, each problem naming its flag so that the user knows what to fix.
// Exit code 2 means the command line was wrong; 1, that discover itself
// failed.
import * as fs from "node:fs";
import * as path from "node:path";
import { UsageError, parseFlags } from "./parse-flags";

export const DISCOVER_USAGE = `usage: go-pve-qemu-pulumi discover --endpoint URL [--exclude-stack-export FILE]... [--out FILE] [--import-file FILE] [--force]

Lists the VMs of the go-pve-qemu server at URL that the given stacks' state does not
hold, and writes a TypeScript program that declares each of them as a Vm with
adopt: true (its first \`pulumi up\` records them and changes nothing on the server),
or Pulumi's bulk import file for them (\`pulumi import --file FILE\`, any language).

  --endpoint URL                the server (else GO_PVE_QEMU_ENDPOINT); a token for a
                                proxy in front of it: GO_PVE_QEMU_TOKEN
  --exclude-stack-export FILE   \`pulumi stack export\` of a stack whose VMs are left out
                                (repeatable; --show-secrets lets it match by server)
  --out FILE                    the program to write (default adopted.ts, none with
                                --import-file alone; - for stdout)
  --import-file FILE            Pulumi's bulk import file to write (- for stdout)
  --force                       overwrite an existing FILE
  --timeout-ms N                longest wait for each answer of the server (default 30000)
  --help                        this text`;

export interface DiscoverCommand {
  endpoint: string;
  token?: string;
  exports: string[];
  /** The program's file, "-" for stdout; undefined: no program. */
  out?: string;
  /** The bulk import file, "-" for stdout; undefined: none. */
  importFile?: string;
  timeoutMs?: number;
  help: boolean;
}

export function parseDiscover(argv: string[], env: NodeJS.ProcessEnv): DiscoverCommand {
  const values = parseFlags(
    argv,
    {
      endpoint: { type: "string" },
      "exclude-stack-export": { type: "string", multiple: true },
      out: { type: "string" },
      "import-file": { type: "string" },
      force: { type: "boolean" },
      "timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    DISCOVER_USAGE,
  );
  const importFile = values["import-file"];
  // Given the import file alone, the user wants no TypeScript program.
  const out = values.out ?? (importFile === undefined ? "adopted.ts" : undefined);
  const command: DiscoverCommand = {
    endpoint: (values.endpoint ?? env.GO_PVE_QEMU_ENDPOINT ?? "").trim(),
    token: env.GO_PVE_QEMU_TOKEN?.trim() || undefined,
    exports: values["exclude-stack-export"] ?? [],
    ...(out === undefined ? {} : { out }),
    ...(importFile === undefined ? {} : { importFile }),
    timeoutMs: millis(values["timeout-ms"]),
    help: values.help === true,
  };
  if (command.help) return command;
  if (command.endpoint === "") {
    throw new UsageError("--endpoint: is required (or GO_PVE_QEMU_ENDPOINT), e.g. --endpoint http://10.0.0.5:8080");
  }
  if (out === "-" && importFile === "-") {
    throw new UsageError("--import-file -: stdout is --out's already; write one of them to a file");
  }
  if (out !== undefined && importFile !== undefined && out !== "-" && path.resolve(out) === path.resolve(importFile)) {
    throw new UsageError(`--import-file ${out}: is --out's file too; give each its own`);
  }
  if (out !== undefined) writable("--out", out, values.force === true);
  if (importFile !== undefined) writable("--import-file", importFile, values.force === true);
  return command;
}

/** A file the command may write: stdout, or a new file (an existing one with --force) in a folder that exists. */
function writable(flag: string, file: string, force: boolean): void {
  if (file === "-") return;
  if (fs.existsSync(file) && !force) {
    throw new UsageError(`${flag} ${file}: the file exists; give --force to overwrite it, or another ${flag}`);
  }
  if (!fs.existsSync(path.dirname(path.resolve(file)))) {
    throw new UsageError(`${flag} ${file}: its folder does not exist`);
  }
}

function millis(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`--timeout-ms: ${JSON.stringify(raw)} is not a whole number of milliseconds > 0`);
  }
  return n;
}
