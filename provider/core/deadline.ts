// customTimeouts, as far as a provider can keep them: the engine sends each
// Create, Update and Delete its timeout and enforces nothing itself. A
// timeout becomes the deadline of that one operation: when it passes, the
// operation's own signal fires, the same way the process's cancel watch fires
// every operation's on a Ctrl-C, so the lifecycle stops following the server
// and answers with what exists (the path an interrupted deployment takes).
// Only that operation is cut: the process and its other operations go on.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Reporter } from "../lifecycle";

export type TimedOperation = "create" | "update" | "delete";

export interface OperationTimeout {
  op: TimedOperation;
  /** As the engine sends it: seconds, 0 for none. */
  seconds: number;
}

/** The longest delay a Node.js timer takes; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The timeout of the operation running in this async context. The plugin's
 * gRPC handler has the request, the provider method it ends in does not (the
 * SDK's server hands that only the URN and properties): the handler runs the
 * SDK's own handling inside `run`, and the method finds the timeout with `of`.
 */
export class OperationTimeouts {
  private readonly current = new AsyncLocalStorage<OperationTimeout>();

  run<T>(timeout: OperationTimeout, f: () => T): T {
    return this.current.run(timeout, f);
  }

  /** The timeout of the operation in progress, when it is an `op` that has one. */
  of(op: TimedOperation): OperationTimeout | undefined {
    const t = this.current.getStore();
    return t !== undefined && t.op === op && t.seconds > 0 && t.seconds * 1000 <= MAX_TIMER_MS ? t : undefined;
  }
}

export interface Deadline {
  /** Fires when the deadline passes, or with the process's cancel. */
  readonly signal: AbortSignal;
  /** Whether the deadline ended the operation (not the deployment's cancel, which would have anyway). */
  passed(): boolean;
  /** `reporter`, noting the last step the operation reported: where it was when the time ran out. */
  noting(reporter: Reporter): Reporter;
  lastStep(): string | undefined;
  /** Stops the clock: the operation has answered. */
  end(): void;
}

/** The deadline of one operation, `t.seconds` from now. */
export function startDeadline(t: OperationTimeout, processSignal?: AbortSignal): Deadline {
  const own = new AbortController();
  let passed = false;
  let last: string | undefined;
  const timer = setTimeout(() => {
    // The deployment's cancel came first: the operation ends as that cancel ends it, and says so.
    if (processSignal?.aborted) return;
    passed = true;
    own.abort(new Error(`${timeoutName(t)} passed`));
  }, t.seconds * 1000);
  // Nothing waits on the timer itself: the operation it bounds keeps the process busy.
  timer.unref();
  return {
    signal: processSignal ? AbortSignal.any([processSignal, own.signal]) : own.signal,
    passed: () => passed,
    noting: (r) => ({
      info: (msg) => {
        last = msg;
        r.info(msg);
      },
      warn: (msg) => r.warn(msg),
      debug: (msg) => r.debug(msg),
    }),
    lastStep: () => last,
    end: () => clearTimeout(timer),
  };
}

/** "customTimeouts create 15s", as a program writes it. */
export function timeoutName(t: OperationTimeout): string {
  return `customTimeouts ${t.op} ${Number(t.seconds.toFixed(3))}s`;
}
