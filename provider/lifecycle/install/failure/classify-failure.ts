// How an install call failed, in the decision table's terms: an answer (the
// server's own refusal, a gateway's JSON, a page before any stream), a broken
// connection, a cancel, a lost stream, or an end without success. Pure but
// for the one list that tells whether an install that sent no stream began.
import {
  CancelledError,
  ConnectionError,
  HttpStatusError,
  OperationFailedError,
  ResponseShapeError,
  STEP,
  isRecoverableSshKeyError,
} from "../../../client";
import type { AnswerBody, VmEntry } from "../../../client";
import type { Failure } from "../rules";
import { LOSS_TEXT, errorText } from "../../core";
import type { InstallJob } from "../job";
import type { StreamProgress } from "../run";
import { realName } from "../../model";

/** How the install call failed, in the decision table's terms (pure but for the one list on a broken connection). */
export async function classify(
  job: InstallJob,
  err: unknown,
  progress: StreamProgress,
  before: Set<number>,
): Promise<Failure> {
  if (err instanceof HttpStatusError) return answered(job, err.status, err.body, before);
  if (err instanceof ResponseShapeError) {
    // A 2xx that is no event stream: the server's own refusal passed on (by a proxy), or something unknown.
    return err.body === "refusal" ? { kind: "refused", status: 200 } : { kind: "unexpected" };
  }
  if (err instanceof ConnectionError) {
    const serverAnswers = await job.client.list({ signal: job.ctx.signal }).then(
      () => true,
      () => false,
    );
    return { kind: "unreachable", serverAnswers };
  }
  if (err instanceof CancelledError) return { kind: "cancelled" };
  if (!(err instanceof OperationFailedError)) return { kind: "unexpected" };
  switch (err.shape) {
    case "aborted":
      return { kind: "cancelled" };
    case "headers-timeout":
      return { kind: "no-stream", seen: await installSeen(job, before) };
    case "connection-lost":
    case "idle-timeout":
    case "overall-timeout":
    case "stream-error":
      return { kind: "lost" };
    default:
      // The recoverable SSH-key error with the stream ending right after it: the server goes on.
      if (err.shape === "error-event" && isRecoverableSshKeyError(err.step, err.serverMessage)) return { kind: "lost" };
      return {
        kind: "ended",
        step: err.step,
        // A named `event: error` frame fails the install where it was, but is no step's own error.
        retryable: err.shape === "error-event" && err.frame === undefined && err.step === STEP.sshKeyCreate,
        vmidTakenRace: err.frame === undefined && err.step === STEP.creatingVm,
        reachedEnd: err.shape === "no-completion" && (progress.phase === "finalize" || progress.facts.completed),
      };
  }
}

/**
 * A non-2xx answer, by who wrote it. The server refuses with its own JSON
 * (400), and anything else below 500 refused the request before any work; a
 * JSON 5xx is a gateway that buffers whole answers, behind which the install
 * may run; any other 5xx (a proxy's page, text) came before the server's
 * stream headers, which it sends before any work: the install never began,
 * which one look at the server confirms.
 */
async function answered(job: InstallJob, status: number, body: AnswerBody, before: Set<number>): Promise<Failure> {
  if (body === "refusal" || status < 500) return { kind: "refused", status };
  if (body === "json") return { kind: "gateway", status };
  return { kind: "no-stream", status, seen: await installSeen(job, before) };
}

/**
 * One look: is there a VM that can only be this install's (its pinned VMID
 * under the name it sent, or this stack's mark for this very install),
 * made since the install began?
 */
async function installSeen(job: InstallJob, before: Set<number>): Promise<boolean> {
  let vms: VmEntry[];
  try {
    vms = (await job.client.list({ signal: job.ctx.signal })).vms;
  } catch {
    return false; // the server cannot even list: nothing says the install began
  }
  const { vmid } = job.inputs;
  const mine = (vm: VmEntry): boolean =>
    !before.has(vm.vmid) &&
    vm.name === realName(job.name, vm.vmid) &&
    (vmid !== undefined ? vm.vmid === vmid : job.marked);
  return vms.some(mine);
}

/** What happened to the stream, without the client's "install failed at step ..." (the install may well go on). */
export function streamLoss(err: unknown, redact: (s: string) => string): string {
  if (!(err instanceof OperationFailedError)) return errorText(err, redact);
  if (err.shape === "error-event") {
    return "the stream ended right after the error the server recovers from (no SSH key pair yet)";
  }
  const what = LOSS_TEXT[err.shape] ?? "the stream ended";
  return redact(err.serverMessage ? `${what}: ${err.serverMessage}` : what);
}
