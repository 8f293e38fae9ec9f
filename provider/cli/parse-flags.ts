// What the commands' command lines have in common, so that every command
// refuses a bad one the same way: Node's own parseArgs, strict and without
// positionals, so that a mistyped or unknown flag stops the command before it
// asks anything of the server; and a UsageError (exit code 2) that ends with
// the command's usage, so that the user sees at once what it takes.
import { parseArgs } from "node:util";
import type { ParseArgsOptionsConfig } from "node:util";

export class UsageError extends Error {
  readonly exitCode = 2;
}

interface StrictConfig<T extends ParseArgsOptionsConfig> {
  args: string[];
  strict: true;
  allowPositionals: false;
  options: T;
}

type Flags<T extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<StrictConfig<T>>>["values"];

/** The flags of `argv` as `options` declares them; a command line parseArgs refuses is a UsageError ending in `usage`. */
export function parseFlags<T extends ParseArgsOptionsConfig>(argv: string[], options: T, usage: string): Flags<T> {
  try {
    return parseArgs<StrictConfig<T>>({ args: argv, strict: true, allowPositionals: false, options }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${usage}`);
  }
}
