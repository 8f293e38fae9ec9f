// One Create, Update or Delete under its customTimeouts deadline (deadline.ts),
// and what it answers when the deadline passed. The lifecycle has already
// stopped following and answered with what exists, as on a Ctrl-C; here the
// answer is said as a timeout, naming it, the step the operation had reached,
// and what the next `up` does. No VM is lost or deleted because a clock ran out:
// - create: the lifecycle's answer as it is (a VM it recorded stays in state;
//   one it did not is in this machine's install journal, which the next
//   create takes over);
// - update: a failed step's state as the lifecycle recorded it; an update
//   stopped before any step was done (in a shutdown, say) is recorded as the
//   server shows the VM, when one last look can tell;
// - delete: the VM stays in state, unless one last look says it is gone.
import type { LifecycleContext } from "../lifecycle";
import type { Bag } from "./bag";
import { startDeadline, timeoutName, type OperationTimeout, type TimedOperation } from "./deadline";
import { PartialFailure } from "./partial-failure";
import type { ProviderCore } from "./provider-core";

/** How long the one look after a passed deadline may take: the operation is already late. */
const LAST_LOOK_MS = 10_000;

/** A VM the server shows: its id and its state as outputs. */
interface Seen {
  id: string;
  state: Bag;
}

/** The VM as the server shows it now (undefined: gone), looked at under `signal`. */
export type LastLook = (signal: AbortSignal) => Promise<Seen | undefined>;

/**
 * Runs `work` with its operation's deadline, when the engine sent one:
 * `ctxOf` makes the lifecycle's context with the deadline's signal.
 * `look`: the last look for an update or delete.
 */
export async function timed<T>(
  core: ProviderCore,
  urn: string,
  op: TimedOperation,
  work: (ctxOf: (identity?: string) => LifecycleContext) => Promise<T>,
  look?: LastLook,
): Promise<T> {
  const timeout = core.timeouts.of(op);
  if (timeout === undefined) return work((identity) => core.lifecycleContext(urn, identity));
  const deadline = startDeadline(timeout, core.cancel?.signal);
  try {
    return await work((identity) => {
      const ctx = core.lifecycleContext(urn, identity, deadline.signal);
      return { ...ctx, reporter: deadline.noting(ctx.reporter) };
    });
  } catch (err) {
    if (!deadline.passed()) throw err;
    return await late<T>(core, { timeout, step: deadline.lastStep(), err }, look);
  } finally {
    deadline.end();
  }
}

/** The answer of an operation whose deadline passed: its failure said as a timeout, or a delete that did happen. */
async function late<T>(core: ProviderCore, said: Said, look?: LastLook): Promise<T> {
  const { timeout, err } = said;
  if (timeout.op === "create") throw restated(said, createNext(err));
  const next = "the next `pulumi up` reads the VM and makes the changes not made yet";
  // A failed step's state is the lifecycle's own record of the VM.
  if (timeout.op === "update" && err instanceof PartialFailure) throw restated(said, next);
  const now = look ? await lastLook(core, look) : { kind: "unknown" as const };
  if (timeout.op === "delete") {
    // The server says it is gone: the delete did happen, late.
    if (now.kind === "gone") return undefined as T;
    throw restated(
      said,
      "the VM stays in state; the next `pulumi destroy` (or the `up` that drops it) deletes it again",
    );
  }
  if (now.kind !== "seen") throw restated(said, next);
  // Nothing of the update was done: the VM as the server shows it now, the changes still to make.
  const text = message(said, next);
  throw new PartialFailure(text, now.found.id, now.found.state, [text]);
}

type Look = { kind: "seen"; found: Seen } | { kind: "gone" } | { kind: "unknown" };

/** One look at the server, bounded, and ended by the deployment's cancel too. */
async function lastLook(core: ProviderCore, look: LastLook): Promise<Look> {
  const bound = AbortSignal.timeout(LAST_LOOK_MS);
  const signal = core.cancel ? AbortSignal.any([core.cancel.signal, bound]) : bound;
  try {
    const found = await look(signal);
    return found ? { kind: "seen", found } : { kind: "gone" };
  } catch {
    // No answer in time: nothing more is known than the operation's own answer.
    return { kind: "unknown" };
  }
}

function createNext(err: unknown): string {
  if (err instanceof PartialFailure)
    return `VM ${err.id} is kept in state as the install left it; the next \`pulumi up\` settles it from what the server shows, without installing it again`;
  return (
    "nothing is in state; the next `pulumi up` creates it, first taking over what this install made on the server " +
    "(this machine's install journal keeps it), so no second VM is made"
  );
}

interface Said {
  timeout: OperationTimeout;
  step: string | undefined;
  err: unknown;
}

/** The failure said as a timeout: which one, where the operation was, what it answered, what comes next. */
function message({ timeout, step, err }: Said, next: string): string {
  const where = step === undefined ? "before the operation reported a step" : `at "${step}"`;
  // A bare cancellation (the lifecycle's and the client's code for one) says nothing the headline does not.
  const bare = (err as { code?: unknown } | undefined)?.code === "GPQ_CANCELLED";
  const answer = bare ? "" : ` The operation's own account: ${err instanceof Error ? err.message : String(err)}`;
  // What happened and what comes next first: the operation's account can run to many lines (an install's last output).
  return (
    `${timeoutName(timeout)} passed ${where}: the provider stopped following the server, which may carry on. ` +
    `Next: ${next}.${answer}`
  );
}

/** The same failure, said as a timeout: a partial one keeps its VM and state. */
function restated(said: Said, next: string): Error {
  const text = message(said, next);
  const { err } = said;
  if (err instanceof PartialFailure) return new PartialFailure(text, err.id, err.properties, [text]);
  return new Error(text, { cause: err });
}
