// A bad option, named as the caller gave it: the CLI turns `option` into its
// flag (--endpoint, --exclude-stack-export), the Automation API reads the
// message as it is.
import type { ErrorCode } from "../client";

export type DiscoverOption = "connection.endpoint" | "excludeStackExports";

export class DiscoverOptionError extends Error {
  readonly code = "GPQ_DISCOVER_OPTION" satisfies ErrorCode;
  constructor(
    readonly option: DiscoverOption,
    /** The value named in the message (a file, an endpoint), when there is one. */
    readonly value: string | undefined,
    /** What is wrong with it, without the option's name. */
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`${option}${value === undefined ? "" : ` ${value}`}: ${problem}`, options);
    this.name = new.target.name;
  }
}
