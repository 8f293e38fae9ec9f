// Decision table: what to do after an install call that did not end in success.
//   decides: decideFailure.
//   inputs:  how the call failed (Failure, from classify), what was known
//            then (FailureFacts), and one Look at the VMID when the server
//            ended the install and the VMID is known.
//   answers: FailureVerdict: failed, partial, retry (once), follow (from the
//            stream's step or from the start), or unknown.
//
// Keyed on what each answer proves: the server's own refusal is definite, a
// gateway's page, a reset or a timeout is not, and a stream that never began
// means the install never began (the server sends its headers before any
// work).
import type { Look } from "../../observe";
import type { LostVerdict } from "./verdicts";

/** How the install call failed, classified (`classify`). */
export type Failure =
  /** refused before any work: the server's own refusal body, or any answer below 500 */
  | { kind: "refused"; status: number }
  /** a gateway's JSON 5xx: it buffers whole answers, so the install may run behind it */
  | { kind: "gateway"; status: number }
  /**
   * no stream came: a 5xx page or text, or no answer's headers in time. The server sends
   * its stream's headers before any work, so the install never began; `seen`: one look
   * found a VM that can only be this install's all the same (so something did begin).
   */
  | { kind: "no-stream"; status?: number; seen: boolean }
  /** no answer; `serverAnswers` when a list works right after */
  | { kind: "unreachable"; serverAnswers: boolean }
  | { kind: "cancelled" }
  /** the stream was lost (cut, silent, too long) while the server carries on */
  | { kind: "lost" }
  /**
   * the server ended the install without success (error event, bare message, close without
   * completion); `reachedEnd`: the stream had shown the last step, whose end was lost or came after close
   */
  | { kind: "ended"; step?: string; retryable: boolean; vmidTakenRace: boolean; reachedEnd: boolean }
  | { kind: "unexpected" };

export interface FailureFacts {
  vmid?: number;
  vmCreated: boolean;
  pinned: boolean;
  /** the VM can be recognised on the server after a lost stream (a VMID, or a name to look for) */
  followable: boolean;
  /** a name without this stack's mark, the VMID the server's to pick: its new VM is looked for by that name (newVmOf) */
  named?: boolean;
  /** the VMID was in the list before the install began */
  existedBefore: boolean;
  attempt: number;
}

export type FailureVerdict =
  | Exclude<LostVerdict, { kind: "follow" } | { kind: "done" }>
  /** follow the install: from the step the stream reached, or from its start (nothing was heard) */
  | { kind: "follow"; why: string; from: "stream" | "start" };

const MAX_ATTEMPTS = 2;

const failed = (why: string): FailureVerdict => ({ kind: "failed", why });
const follow = (from: "stream" | "start", why: string): FailureVerdict => ({ kind: "follow", from, why });

/**
 * The decision table for a failed install call. `look` is one look at the
 * VMID, taken only when the server ended the install and the VMID is known.
 */
export function decideFailure(f: Failure, facts: FailureFacts, look?: Look): FailureVerdict {
  switch (f.kind) {
    case "refused":
      return failed("nothing was created");
    case "gateway":
      if (!facts.followable && facts.named !== true)
        return failed(
          "the answer is a gateway's, behind which the install may run, but without a vmid or name nothing could be recognised as this install's; nothing was recorded, and a new VM the server makes is not this stack's until it is declared with `adopt: true`",
        );
      return follow(
        "start",
        `HTTP ${f.status} in JSON came from a gateway that holds back whole answers, not from the server: the install may be running behind it`,
      );
    case "no-stream":
      if (!f.seen)
        return failed(
          "the server's stream never began (it sends its headers before any work), and no VM of this install is on the server: nothing was created",
        );
      return follow(
        "start",
        "no stream came, yet a VM of this install is on the server: something in between held the stream back",
      );
    case "unreachable":
      if (!f.serverAnswers || !facts.followable) return failed("the server could not be reached to install");
      return follow("start", "the request broke, but the server answers: the install may have started");
    case "cancelled":
      if (facts.vmid === undefined || facts.existedBefore)
        return failed("the install was cancelled before a VMID was assigned");
      return {
        kind: "partial",
        installState: "unconfirmed",
        why: "was cancelled; the server may still be installing it",
      };
    case "lost":
      // Before the VMID, a name the user gave is looked for as behind a gateway (newVmOf): the server
      // goes on either way, and refusing to look left its VM in no state and the next up made a second.
      if (!facts.followable && facts.named !== true)
        return {
          kind: "unknown",
          why: "the stream was lost before the server named the VMID, and without a vmid or a name nothing on the server can be told to be this install's",
        };
      return follow("stream", "the server carries on without a listener");
    case "unexpected":
      if (facts.vmid === undefined) return failed("the install failed");
      return follow("stream", "the install's end was not understood");
    case "ended":
      return decideEnded(f, facts, look);
  }
}

function decideEnded(f: Extract<Failure, { kind: "ended" }>, facts: FailureFacts, look?: Look): FailureVerdict {
  if (f.reachedEnd && facts.vmid !== undefined) {
    // Nothing after the last step can fail: only its last lines went missing (lost, or sent after close).
    return {
      kind: "follow",
      from: "stream",
      why: "the install reached its last step, but its completion mark did not arrive",
    };
  }
  if (f.retryable && !facts.vmCreated) {
    return retryOnce(facts, {
      why: "the server could not create its SSH key pair: another install on a fresh server was creating it at the same moment",
      advice: "The server cannot create its SSH key pair: check its $HOME/.ssh",
    });
  }
  if (facts.vmid === undefined)
    return { kind: "failed", why: "the install failed before a VMID was assigned; nothing was created" };
  if (look === undefined || look.kind === "unreadable") {
    if (facts.vmCreated)
      return {
        kind: "partial",
        installState: "failed",
        why: "failed after the VM was created, and the server could not be asked whether it still exists",
      };
    return { kind: "failed", why: "the install failed before the VM was created" };
  }
  if (look.kind === "absent") {
    return {
      kind: "failed",
      why: `nothing is left on the server${facts.vmCreated ? " (the server removed the half-made VM)" : ""}`,
    };
  }
  if (f.vmidTakenRace && !facts.vmCreated) {
    const holder = look.kind === "other" ? ` ("${look.name}")` : "";
    const taken = `VMID ${facts.vmid} was taken by another VM${holder} while this install was preparing`;
    if (facts.pinned) return { kind: "failed", why: `${taken}; nothing of this install was created` };
    return retryOnce(facts, {
      why: `${taken} (the auto-assigned VMID race); the server picks the next free VMID`,
      advice: "Another client is installing VMs on the same server at the same time: pin a vmid, or try again",
    });
  }
  if (facts.existedBefore || look.kind === "other")
    return {
      kind: "failed",
      why: `VM ${facts.vmid} on the server existed before the install and is not this install's`,
    };
  return { kind: "partial", installState: "failed", why: "failed after the VM was created" };
}

/** Nothing was made: retry once; a second time it fails, with the advice. */
function retryOnce(facts: FailureFacts, r: { why: string; advice: string }): FailureVerdict {
  if (facts.attempt >= MAX_ATTEMPTS)
    return { kind: "failed", why: `${r.why}; it happened again on the retry. ${r.advice}` };
  return { kind: "retry", ...r };
}
