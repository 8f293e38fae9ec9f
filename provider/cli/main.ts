// The commands of `go-pve-qemu-pulumi`. One today, discover: it runs the
// package's discover() (the same function Automation API scripts call),
// prints its report and writes its program.
import * as fs from "node:fs";
import { discover, DiscoverOptionError } from "../discover";
import type { DiscoverOption } from "../discover";
import { DISCOVER_USAGE, UsageError, parseDiscover } from "./args";

const USAGE = `usage: go-pve-qemu-pulumi <command>

commands:
  discover   write a program that adopts a server's VMs (go-pve-qemu-pulumi discover --help)`;

/** The flag behind each option of discover(), for messages. */
const FLAG: Record<DiscoverOption, string> = {
  "connection.endpoint": "--endpoint",
  excludeStackExports: "--exclude-stack-export",
};

/**
 * Runs one command line and sets process.exitCode. index.ts loads it with
 * require() once the Node.js check passed, so no import names it.
 * @public
 */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      process.stdout.write(`${USAGE}\n`);
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
  // With the program on stdout, the report goes to stderr.
  const say = (line: string): boolean => (cmd.out === "-" ? process.stderr : process.stdout).write(`${line}\n`);
  found.report.forEach(say);
  if (cmd.out === "-") {
    process.stdout.write(found.program);
    return;
  }
  fs.writeFileSync(cmd.out, found.program);
  say(`wrote ${cmd.out}: ${found.adopted.length} Vm${found.adopted.length === 1 ? "" : "s"} with adopt: true`);
  if (found.adopted.length > 0) {
    say(`next: pulumi config set goPveQemu:endpoint ${found.endpoint}, then pulumi preview and pulumi up`);
  }
}

function messageOf(err: unknown): string {
  if (err instanceof DiscoverOptionError) {
    return `${FLAG[err.option]}${err.value === undefined ? "" : ` ${err.value}`}: ${err.problem}`;
  }
  return err instanceof Error ? err.message : String(err);
}
