// The install call failed: classify how, observe the server where that
// matters, decide (decide.ts, decideFailure), and record: retry, follow the
// install (follow.ts), keep the VM in state (partial), or a plain error.
import {
  CancelledError,
  ConnectionError,
  HttpStatusError,
  OperationFailedError,
  ResponseShapeError,
  STEP,
  UNNAMED_PHASE,
  isRecoverableSshKeyError,
} from "../client";
import type { AnswerBody, VmEntry, InstallFacts, Phase } from "../client";
import { clockOf, openBoundsOf } from "./context";
import { decideFailure, timelineOf } from "./decide";
import type { Failure, FailureVerdict } from "./decide";
import { CODES, LifecycleError } from "./errors";
import type { ErrorCode } from "./errors";
import { follow } from "./follow";
import { LOSS_TEXT, vmLabel } from "./labels";
import { exists, lookOf } from "./look";
import type { Look } from "./look";
import { observe, powerWord } from "./observe";
import { failWithVm } from "./outcome";
import type { CreateResult, InstallJob, Sighting } from "./outcome";
import { errorText, safeCause } from "./redact";
import { dropUndefined, realName } from "./state";
import type { InstallTicket } from "./vmid-lock";

/** What the install had shown when it failed. */
export interface Progress {
  facts: InstallFacts;
  step: string;
  phase: Phase;
}

/** A retry is safe only when nothing of the install was created; `advice` is for when the retry fails too. */
export type Attempt = { kind: "done"; result: CreateResult } | { kind: "retry"; reason: string; advice: string };

/** How the install call failed, in the decision table's terms (pure but for the one list on a broken connection). */
async function classify(job: InstallJob, err: unknown, progress: Progress, before: Set<number>): Promise<Failure> {
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

export async function settleFailure(
  job: InstallJob,
  err: unknown,
  progress: Progress,
  before: Set<number>,
  ticket: InstallTicket,
  attempt: number,
): Promise<Attempt> {
  const { inputs, redact } = job;
  const facts: Partial<InstallFacts> = {
    ...progress.facts,
    ...(err instanceof OperationFailedError && err.facts ? dropUndefined(err.facts) : {}),
  };
  const vmid = facts.vmid ?? inputs.vmid;
  const failure = await classify(job, err, progress, before);
  const looked = failure.kind === "ended" && vmid !== undefined ? await look(job, vmid) : undefined;
  const seen = looked?.seen;
  const verdict = decideFailure(
    failure,
    {
      vmid,
      vmCreated: facts.vmCreated === true,
      pinned: inputs.vmid !== undefined,
      // a VMID, or this stack's mark in the name: a name alone is no evidence
      followable: vmid !== undefined || job.marked,
      existedBefore: vmid !== undefined && before.has(vmid),
      attempt,
    },
    seen,
  );
  const why = failure.kind === "lost" ? streamLoss(err, redact) : errorText(err, redact);
  const cause = safeCause(err, redact);
  const sighting: Sighting = { facts: { ...facts, vmid }, entry: looked?.entry, status: looked?.status };
  return recordFailure(job, verdict, { facts, vmid, why, cause, progress, before, ticket, failure, sighting });
}

/** What happened to the stream, without the client's "install failed at step ..." (the install may well go on). */
function streamLoss(err: unknown, redact: (s: string) => string): string {
  if (!(err instanceof OperationFailedError)) return errorText(err, redact);
  if (err.shape === "error-event") {
    return "the stream ended right after the error the server recovers from (no SSH key pair yet)";
  }
  const what = LOSS_TEXT[err.shape] ?? "the stream ended";
  return redact(err.serverMessage ? `${what}: ${err.serverMessage}` : what);
}

/** One look at the VMID, for the table and for the state. */
async function look(job: InstallJob, vmid: number): Promise<{ seen: Look; entry?: VmEntry; status?: string }> {
  try {
    const o = await observe(job.client, vmid, { vmName: realName(job.name, vmid) }, job.ctx.signal);
    const seen = lookOf(o);
    return exists(seen) ? { seen, entry: o.entry, status: powerWord(o) } : { seen };
  } catch (err) {
    return { seen: { kind: "unreadable", error: errorText(err, job.redact) } };
  }
}

interface Known {
  facts: Partial<InstallFacts>;
  vmid?: number;
  why: string;
  cause: unknown;
  progress: Progress;
  before: Set<number>;
  ticket: InstallTicket;
  failure: Failure;
  sighting: Sighting;
}

async function recordFailure(job: InstallJob, v: FailureVerdict, k: Known): Promise<Attempt> {
  switch (v.kind) {
    case "retry":
      return { kind: "retry", reason: v.why, advice: v.advice };
    case "follow": {
      const step = v.from === "start" ? "" : k.progress.step;
      const phase = v.from === "start" ? "checkVmid" : k.progress.phase;
      if (v.from === "start") job.ctx.reporter.warn(`${v.why}; asking the server what became of it`);
      const at = { facts: k.facts, step, phase, before: k.before, ticket: k.ticket, why: k.why, cause: k.cause };
      return { kind: "done", result: await follow(job, at) };
    }
    case "partial": {
      const lost =
        v.installState === "unconfirmed"
          ? timelineOf(
              { step: k.progress.step, phase: k.progress.phase, lostAt: clockOf(job.ctx).now() },
              openBoundsOf(job.ctx),
              job.inputs.node !== undefined,
            )
          : undefined;
      const label = vmLabel(k.vmid!, k.facts.realName);
      return failWithVm(job, k.sighting, [`the install of VM ${label} ${v.why}${during(k)}: ${k.why}`], k.cause, lost);
    }
    case "unknown":
      throw new LifecycleError(`${failureText(job, v, k)}. ${unclaimedStep(job)}`, {
        cause: k.cause,
        code: CODES.installUnknown,
      });
    default:
      throw new LifecycleError(failureText(job, v, k), { cause: k.cause, code: codeOf(k.failure) });
  }
}

/** A silent failure of `qm start` / `qm reboot`, which the stream names by the step before. */
function during(k: Known): string {
  const text = k.failure.kind === "ended" ? UNNAMED_PHASE[k.progress.phase] : undefined;
  return text ? ` while ${text}, after step "${k.progress.step}"` : "";
}

function failureText(job: InstallJob, v: { kind: string; why: string }, k: Known): string {
  const f = k.failure;
  const words = k.cause instanceof HttpStatusError ? job.redact(k.cause.serverMessage) : k.why;
  if (f.kind === "refused") {
    const who =
      k.cause instanceof HttpStatusError && k.cause.body !== "refusal"
        ? "the install was refused"
        : "the server refused the install";
    return `${who}: ${words} (HTTP ${f.status}); ${v.why}${authAdvice(f.status)}`;
  }
  if (f.kind === "no-stream" || f.kind === "gateway") {
    const status = f.status === undefined ? "no answer" : `HTTP ${f.status}`;
    return `the install failed: ${words} (${status}); ${v.why}`;
  }
  if (f.kind === "unreachable") return `could not reach the server at ${job.conn.endpoint} to install: ${k.why}`;
  const which = k.vmid === undefined ? "the install" : `the install of VM ${k.vmid}`;
  return `${which} failed; ${v.why}: ${k.why}`;
}

/** What to do about a VM the server may still make that cannot be told to be this install's. */
function unclaimedStep(job: InstallJob): string {
  const name = job.name === undefined ? "the next new VM" : `a new VM named ${job.name}-<vmid>`;
  return (
    `If ${name} appears on ${job.conn.endpoint} and it is this stack's, declare it with its \`vmid\` and \`adopt: true\`; ` +
    "if not, nothing is needed"
  );
}

/** A refusal of the credentials: say which settings carry them. */
function authAdvice(status: number): string {
  return status === 401 || status === 403
    ? "; the server or its proxy refused the credentials: check connection.token / goPveQemu:token / GO_PVE_QEMU_TOKEN, or connection.headers"
    : "";
}

function codeOf(f: Failure): ErrorCode {
  if (f.kind === "unreachable") return CODES.unreachable;
  if (f.kind === "cancelled") return CODES.cancelled;
  return CODES.installFailed;
}
