// Typed failures of the lifecycle. There is ONE partial type: every partial
// result (a create that failed after the VM was made, an update that stopped
// part way, an adopt whose convergence stopped) is a PartialError, and the
// Pulumi glue turns every PartialError into the engine's "partially created /
// updated" result, so a VM that exists on the server is never lost from
// state. Every other error means "no change to state". Each error carries a
// stable `code` (undici's pattern): tests and users match codes, not
// sentences. Messages name the VM and quote the server, and never carry a
// password or token (callers pass text through `redact` first).
import type { VmState } from "./state";

export const CODES = {
  /** a VM exists and is kept in state; the operation did not finish */
  partial: "GPQ_PARTIAL",
  /** any other lifecycle failure that left nothing (of ours) behind */
  lifecycle: "GPQ_LIFECYCLE",
  /** the server refused the install (an answer, an error event, a bare refusal) */
  installFailed: "GPQ_INSTALL_FAILED",
  /** the install's outcome could not be known and there is no VMID to record */
  installUnknown: "GPQ_INSTALL_UNKNOWN",
  /** a pinned VMID is held by another VM, or several VMs carry this resource's name */
  vmidTaken: "GPQ_VMID_TAKEN",
  /** the server could not be reached or listed */
  unreachable: "GPQ_UNREACHABLE",
  cancelled: "GPQ_CANCELLED",
  adopt: "GPQ_ADOPT",
  /** a graceful shutdown did not work and a hard stop is not allowed (goPveQemu:allowHardStop false) */
  shutdownFailed: "GPQ_SHUTDOWN_FAILED",
} as const;
export type ErrorCode = (typeof CODES)[keyof typeof CODES];

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

/** A failure that left nothing behind on the server (or nothing that is ours): plain error, no state. */
export class LifecycleError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(message, options);
    this.name = "LifecycleError";
    this.code = options?.code ?? CODES.lifecycle;
  }
}
