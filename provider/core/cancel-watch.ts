// Cancellation, as far as the engine lets it reach the provider process: the
// rules, kept apart from the real process's sources (which only the provider
// host binds), so that they run on injected ones.
//
// Pulumi's host for Node.js dynamic providers answers the engine's Cancel call
// and does nothing with it, and the engine starts each plugin in a process
// group of its own, so a terminal's Ctrl-C never reaches this process. What it
// does observe (measured with pulumi v3.276; the user documentation's
// "Failure behaviour" says what each case means for a deployment):
// - one Ctrl-C, SIGTERM to `pulumi`, the Automation API's abort (SIGINT to
//   `pulumi`): nothing while an operation runs. The engine waits for every
//   operation in flight, then stops the provider with SIGINT once it is idle.
// - a second Ctrl-C: SIGINT at once, and a SIGKILL about 5 s later. An answer
//   given after that SIGINT is not recorded (the engine has stopped
//   listening), but ending the operations at once stops the polling and lets
//   the process end before it is killed.
// - `pulumi` killed (kill -9, a CI runner gone): stdin, a pipe from the
//   engine, ends within a few hundred ms, and the parent becomes another
//   process. Nobody stops this process then: without this module it goes on
//   following installs for as long as their timeouts allow, and its gRPC
//   server keeps it alive after that.
// So: one AbortSignal for every operation, fired by SIGINT, SIGTERM, stdin
// ending or the parent changing; on abort the lifecycle stops waiting and
// answers with what exists, and the process exits once the operations in
// flight have answered (or after GRACE_MS).

/** How long operations in flight may take to answer after an abort before the process exits anyway. */
const GRACE_MS = 3_000;
/** How often the parent process is checked. */
const PARENT_POLL_MS = 500;

export interface CancelWatch {
  signal: AbortSignal;
  /**
   * The engine's Cancel (it reaches a resource plugin, never a dynamic
   * provider): the operations in flight stop waiting and answer with what
   * exists, and the engine records those answers, so the process stays.
   */
  cancel(reason: string): void;
  /** Runs `work` as an operation in flight: the process does not exit on abort before it has answered. */
  track<T>(work: Promise<T>): Promise<T>;
}

export interface CancelSources {
  /** Subscribes to a signal; answers an unsubscribe. */
  onSignal(sig: "SIGINT" | "SIGTERM", handler: () => void): () => void;
  /** Subscribes to the end of stdin when it is a pipe from the engine; undefined otherwise. */
  onStdinEnd(handler: () => void): (() => void) | undefined;
  /** The parent process id now. */
  ppid(): number;
  /** Calls `f` every `ms` until stopped; must not keep the process alive. */
  every(ms: number, f: () => void): () => void;
  /** Calls `f` once after `ms`; must not keep the process alive. */
  after(ms: number, f: () => void): void;
  /** Ends the process: by re-raising the signal, or with exit code 1 for a lost parent. */
  exit(how: "SIGINT" | "SIGTERM" | "parent gone"): void;
}

/**
 * Watches the sources and fires the signal on the first of them. Only the
 * provider process installs this (`providerCancelWatch`); the sources are
 * injected so the rules can be tested without signalling a test runner.
 */
export function watchCancel(sources: CancelSources): CancelWatch {
  const controller = new AbortController();
  let inFlight = 0;
  let exitHow: Parameters<CancelSources["exit"]>[0] | undefined;
  let exited = false;
  const exitNow = (): void => {
    if (exited || exitHow === undefined) return;
    exited = true;
    stopAll();
    sources.exit(exitHow);
  };
  const cancel = (how: NonNullable<typeof exitHow>, reason: string): void => {
    if (exitHow !== undefined) return;
    exitHow = how;
    controller.abort(new Error(reason));
    if (inFlight === 0) exitNow();
    else sources.after(GRACE_MS, exitNow);
  };

  const initialParent = sources.ppid();
  const stops = [
    sources.onSignal("SIGINT", () =>
      cancel("SIGINT", "the engine stopped the provider (a second Ctrl-C, or pulumi ending)"),
    ),
    sources.onSignal("SIGTERM", () => cancel("SIGTERM", "the provider was terminated (SIGTERM)")),
    sources.onStdinEnd(() => cancel("parent gone", "pulumi is gone (its connection to the provider closed)")),
    sources.every(PARENT_POLL_MS, () => {
      if (sources.ppid() !== initialParent)
        cancel("parent gone", "pulumi is gone (the provider lost its parent process)");
    }),
  ];
  const stopAll = (): void => stops.forEach((stop) => stop?.());

  return {
    signal: controller.signal,
    cancel(reason) {
      if (!controller.signal.aborted) controller.abort(new Error(reason));
    },
    async track(work) {
      inFlight++;
      try {
        return await work;
      } finally {
        inFlight--;
        if (inFlight === 0 && exitHow !== undefined) exitNow();
      }
    },
  };
}
