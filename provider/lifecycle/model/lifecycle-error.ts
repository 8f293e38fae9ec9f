// Typed failures of the lifecycle that leave nothing of ours behind, and the
// lifecycle's names for the stable codes it uses (each code, its meaning and
// what the user does next are in the client's registry, ERROR_CODES): tests
// and users match codes, not sentences. Messages name the VM and quote the
// server, and never carry a password or token (callers redact first).
import type { ErrorCode } from "../../client";

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
  /** a rollout stopped after a VM of its downtime group failed: this VM was not shut down */
  heldBack: "GPQ_HELD_BACK",
  /** allowDowntime false, and the change would take the VM down */
  downtimeRefused: "GPQ_DOWNTIME_REFUSED",
} as const satisfies Record<string, ErrorCode>;

/** A failure that left nothing behind on the server (or nothing that is ours): plain error, no state. */
export class LifecycleError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(message, options);
    this.name = "LifecycleError";
    this.code = options?.code ?? CODES.lifecycle;
  }
}
