// The one partial type: every partial result (a create that failed after
// the VM was made, an update that stopped part way, an adopt whose
// convergence stopped) is a PartialError, and the Pulumi glue turns each into
// the engine's "partially created / updated" result, so a VM that exists on
// the server is never lost from state.
import { CODES } from "./lifecycle-error";
import type { VmState } from "./state";

/** A VM exists and `state` is true to it, but the operation did not finish. */
export class PartialError extends Error {
  readonly code = CODES.partial;
  readonly operation: "create" | "update";
  readonly id: string;
  /** true to the VM as far as it is known */
  readonly state: VmState;
  /** one line each, shown by the engine */
  readonly reasons: string[];
  /** update only: descriptions of the steps that were applied, in order */
  readonly applied: string[];
  /** update only: the steps that were not applied (the failed one first) */
  readonly notApplied: string[];
  constructor(init: {
    operation?: "create" | "update";
    id: string;
    state: VmState;
    reasons: string[];
    applied?: string[];
    notApplied?: string[];
    cause?: unknown;
  }) {
    super(init.reasons.join("; "), { cause: init.cause });
    this.name = new.target.name;
    this.operation = init.operation ?? "create";
    this.id = init.id;
    this.state = init.state;
    this.reasons = init.reasons;
    this.applied = init.applied ?? [];
    this.notApplied = init.notApplied ?? [];
  }
}

/** A create that failed after the VM was made: the VM exists and is kept in state. */
export class PartialCreateError extends PartialError {
  constructor(init: { id: string; state: VmState; reasons: string[]; cause?: unknown }) {
    super({ ...init, operation: "create" });
  }
}

/** An update that stopped part way: `state` reflects the applied steps only. */
export class PartialUpdateError extends PartialError {
  constructor(init: {
    id: string;
    state: VmState;
    reasons: string[];
    applied: string[];
    notApplied: string[];
    cause?: unknown;
  }) {
    super({ ...init, operation: "update" });
  }
}
