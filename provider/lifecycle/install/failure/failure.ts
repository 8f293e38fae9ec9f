// The install call failed: classify how, observe the server where that
// matters, decide, and record: retry, follow the install, keep the VM in
// state (partial), or a plain error.
import { HttpStatusError, OperationFailedError, UNNAMED_PHASE } from "../../../client";
import { classify, streamLoss } from "./classify-failure";
import type { StreamProgress } from "../run";
import { clockOf, openBoundsOf, vmLabel, errorText, safeCause } from "../../core";
import { decideFailure } from "../rules";
import { sinceStart, timelineOf } from "../timeline";
import type { Failure, FailureVerdict } from "../rules";
import { CODES, LifecycleError, dropUndefined, realName } from "../../model";
import type { ErrorCode, InstallFacts } from "../../../client";
import type { LostInstall } from "../../model";
import { follow } from "../follow";
import { lookAt } from "../../observe";
import type { ObservedLook } from "../../observe";
import { failWithVm } from "../record";
import { sendsNode } from "../run";
import { localNodeRefused } from "./local-node";
import type { CreateResult, InstallJob } from "../job";
import type { StateBasis } from "../record";
import type { InstallTicket } from "../../core";

/**
 * What one attempt at the install ends in, once its failure was handled: a
 * create result, or a retry. No verdict: it is what was done with one (a
 * verdict of "follow" or "partial" is acted on here and ends as "done"). A
 * retry is safe only when nothing of the install was created; `advice` is
 * for when the retry fails too.
 */
export type AttemptEnd =
  | { kind: "done"; result: CreateResult }
  /** `serverNode`: the retry installs there without naming it */
  | { kind: "retry"; reason: string; advice: string; serverNode?: string };

export async function handleInstallFailure(
  job: InstallJob,
  err: unknown,
  progress: StreamProgress,
  before: Set<number>,
  ticket: InstallTicket,
  attempt: number,
): Promise<AttemptEnd> {
  const { inputs, redact } = job;
  const facts: Partial<InstallFacts> = {
    ...progress.facts,
    ...(err instanceof OperationFailedError && err.facts ? dropUndefined(err.facts) : {}),
  };
  const vmid = facts.vmid ?? inputs.vmid;
  if (progress.localNodeRefused) {
    const again = await localNodeRefused(job, vmid, before);
    if (again !== undefined) return again;
  }
  const failure = await classify(job, err, progress, before);
  const looked = failure.kind === "ended" && vmid !== undefined ? await look(job, vmid) : undefined;
  const verdict = decideFailure(
    failure,
    {
      vmid,
      vmCreated: facts.vmCreated === true,
      pinned: inputs.vmid !== undefined,
      // a VMID, or this stack's mark in the name: a name alone is no evidence
      followable: vmid !== undefined || job.marked,
      named: job.sameName !== undefined,
      existedBefore: vmid !== undefined && before.has(vmid),
      attempt,
    },
    looked?.look,
  );
  const why = failure.kind === "lost" ? streamLoss(err, redact) : errorText(err, redact);
  const cause = safeCause(err, redact);
  const basis: StateBasis = { facts: { ...facts, vmid }, observation: looked?.observation };
  return recordFailure(job, verdict, { facts, vmid, why, cause, progress, before, ticket, failure, basis });
}

/** One look at the VMID, for the table and for the state. */
async function look(job: InstallJob, vmid: number): Promise<ObservedLook> {
  const expect = { vmName: realName(job.name, vmid) };
  return lookAt(job.client, vmid, expect, { redact: job.redact, signal: job.ctx.signal });
}

interface Known {
  facts: Partial<InstallFacts>;
  vmid?: number;
  why: string;
  cause: unknown;
  progress: StreamProgress;
  before: Set<number>;
  ticket: InstallTicket;
  failure: Failure;
  basis: StateBasis;
}

async function recordFailure(job: InstallJob, v: FailureVerdict, k: Known): Promise<AttemptEnd> {
  switch (v.kind) {
    case "retry":
      return { kind: "retry", reason: v.why, advice: v.advice };
    case "follow": {
      const step = v.from === "start" ? "" : k.progress.step;
      const phase = v.from === "start" ? "checkVmid" : k.progress.phase;
      if (v.from === "start") job.ctx.reporter.warn(`${v.why}; asking the server what became of it`);
      const at = { facts: k.facts, step, phase, before: k.before, ticket: k.ticket, why: k.why, cause: k.cause };
      if (k.progress.watched !== undefined) Object.assign(at, { watched: k.progress.watched });
      return { kind: "done", result: await follow(job, at) };
    }
    case "partial": {
      const lost = v.installState === "unconfirmed" ? lostTimeline(job, k.progress) : undefined;
      const label = vmLabel(k.vmid!, k.facts.realName);
      return failWithVm(job, k.basis, [`the install of VM ${label} ${v.why}${during(k)}: ${k.why}`], k.cause, lost);
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

/**
 * The timeline recorded for an install left unconfirmed (a cancel): from the
 * phase its stream had reached now, and from when it began; each deadline
 * the earlier. Fixed once recorded: every later run names its settle time.
 */
function lostTimeline(job: InstallJob, progress: StreamProgress): LostInstall {
  const open = openBoundsOf(job.ctx);
  const withNode = sendsNode(job);
  const now = { step: progress.step, phase: progress.phase, lostAt: clockOf(job.ctx).now() };
  return sinceStart(timelineOf(now, open, withNode), job.startedAt, open, withNode);
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
