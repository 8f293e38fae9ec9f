// Typed failures of the lifecycle. The Pulumi glue turns the two partial
// errors into the engine's "partially created / updated" result, so a VM that
// exists on the server is never lost from state; every other error means "no
// change to state". Messages name the VM and quote the server, and never
// carry a password or token (callers pass text through `redact` first).
import type { VmState } from "./state";

/** A create that failed after the VM was made: the VM exists and is kept in state. */
export class PartialCreateError extends Error {
  readonly id: string;
  /** true to the VM as far as it is known */
  readonly state: VmState;
  /** one line each, shown by the engine */
  readonly reasons: string[];
  constructor(init: { id: string; state: VmState; reasons: string[]; cause?: unknown }) {
    super(init.reasons.join("; "), { cause: init.cause });
    this.name = "PartialCreateError";
    this.id = init.id;
    this.state = init.state;
    this.reasons = init.reasons;
  }
}

/** An update that stopped part way: `state` reflects the applied steps only. */
export class PartialUpdateError extends Error {
  readonly id: string;
  readonly state: VmState;
  readonly reasons: string[];
  /** descriptions of the steps that were applied, in order */
  readonly applied: string[];
  /** descriptions of the steps that were not applied (the failed one first) */
  readonly notApplied: string[];
  constructor(init: {
    id: string;
    state: VmState;
    reasons: string[];
    applied: string[];
    notApplied: string[];
    cause?: unknown;
  }) {
    super(init.reasons.join("; "), { cause: init.cause });
    this.name = "PartialUpdateError";
    this.id = init.id;
    this.state = init.state;
    this.reasons = init.reasons;
    this.applied = init.applied;
    this.notApplied = init.notApplied;
  }
}

/** A failure that left nothing behind on the server (or nothing that is ours): plain error, no state. */
export class LifecycleError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "LifecycleError";
  }
}
