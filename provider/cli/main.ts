// The commands of `go-pve-qemu-pulumi`: discover (the package's discover(),
// the same function Automation API scripts call: its report, and the program
// it writes) and recover (a stack's interrupted creates, resolved before the
// next `pulumi up`; the same functions as go-pve-qemu-pulumi/recover).
import * as fs from "node:fs";
import { discover, DiscoverOptionError } from "../discover";
import type { DiscoverOption } from "../discover";
import { DISCOVER_USAGE, parseDiscover } from "./args";
import { UsageError } from "./parse-flags";
import { RECOVER_USAGE, parseRecover } from "./recover-args";

const USAGE = `usage: go-pve-qemu-pulumi <command>

commands:
  discover   write a program that adopts a server's VMs (go-pve-qemu-pulumi discover --help)
  recover    resolve a stack's interrupted creates before pulumi up (go-pve-qemu-pulumi recover --help)`;

/** The flag behind each option of discover(), for messages. */
const FLAG: Record<DiscoverOption, string> = {
  "connection.endpoint": "--endpoint",
  excludeStackExports: "--exclude-stack-export",
};

/**
 * Runs one command line and sets process.exitCode. The bin's entry loads it
 * with require() once the Node.js check passed, so no import names it.
 * @public
 */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      process.stdout.write(`${USAGE}\n`);
      return;
    }
    if (command === "recover") {
      process.exitCode = await runRecover(rest);
      return;
    }
    if (command !== "discover") throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    await runDiscover(rest);
  } catch (err) {
    process.stderr.write(`go-pve-qemu-pulumi ${command ?? ""}: ${messageOf(err)}\n`);
    process.exitCode = err instanceof UsageError || err instanceof DiscoverOptionError ? 2 : 1;
  }
}

async function runDiscover(argv: string[]): Promise<void> {
  const cmd = parseDiscover(argv, process.env);
  if (cmd.help) {
    process.stdout.write(`${DISCOVER_USAGE}\n`);
    return;
  }
  const found = await discover({
    connection: { endpoint: cmd.endpoint, ...(cmd.token ? { token: cmd.token } : {}) },
    excludeStackExports: cmd.exports,
    ...(cmd.timeoutMs !== undefined ? { timeoutMs: cmd.timeoutMs } : {}),
  });
  // With a file on stdout, the report goes to stderr.
  const toStdout = cmd.out === "-" || cmd.importFile === "-";
  const say = (line: string): boolean => (toStdout ? process.stderr : process.stdout).write(`${line}\n`);
  found.report.forEach(say);
  const vms = `${found.adopted.length} Vm${found.adopted.length === 1 ? "" : "s"}`;
  /** To stdout, or to the file, said in the report's stream. */
  const write = (file: string | undefined, text: string, what: string): void => {
    if (file === "-") process.stdout.write(text);
    else if (file !== undefined) {
      fs.writeFileSync(file, text);
      say(`wrote ${file}: ${vms} ${what}`);
    }
  };
  write(cmd.out, found.program, "with adopt: true");
  write(cmd.importFile, `${JSON.stringify(found.importFile, null, 2)}\n`, "to import");
  if (found.adopted.length === 0) return;
  if (cmd.out !== undefined && cmd.out !== "-") {
    say(`next: pulumi config set goPveQemu:endpoint ${found.endpoint}, then pulumi preview and pulumi up`);
  }
  if (cmd.importFile !== undefined && cmd.importFile !== "-") {
    say(`next: pulumi config set gopveqemu:endpoint ${found.endpoint}, then pulumi import --file ${cmd.importFile}`);
  }
}

/** 0 when every pending create is resolved (or none), 3 when one needs the user's word. */
async function runRecover(argv: string[]): Promise<number> {
  const cmd = parseRecover(argv);
  if (cmd.help) {
    process.stdout.write(`${RECOVER_USAGE}\n`);
    return 0;
  }
  // The Automation API loads only for this command.
  const { LocalWorkspace } = await import("@pulumi/pulumi/automation");
  const { clearResolvedPendingCreates, recoverPendingCreates } = await import("../recover");
  const ws = await LocalWorkspace.create({ workDir: cmd.cwd });
  const name = cmd.stack ?? (await ws.stack())?.name;
  if (name === undefined) throw new UsageError("--stack: no stack is selected in --cwd; give one");
  const stack = await LocalWorkspace.selectStack({ stackName: name, workDir: cmd.cwd });
  if (cmd.after) {
    const cleared = await clearResolvedPendingCreates(stack);
    process.stdout.write(
      `recover: ${cleared.length} resolved pending create(s) cleared${cleared.length ? `: ${cleared.join(", ")}` : ""}\n`,
    );
    return 0;
  }
  const report = await recoverPendingCreates(stack, { adopt: cmd.adopt, discard: cmd.discard });
  if (report.lines.length === 0) process.stdout.write(`recover: stack ${name} has no pending Vm creates\n`);
  for (const line of report.lines) process.stdout.write(`recover: ${line}\n`);
  return report.undecided ? 3 : 0;
}

function messageOf(err: unknown): string {
  if (err instanceof DiscoverOptionError) {
    return `${FLAG[err.option]}${err.value === undefined ? "" : ` ${err.value}`}: ${err.problem}`;
  }
  return err instanceof Error ? err.message : String(err);
}
