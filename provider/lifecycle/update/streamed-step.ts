// One streamed update step (start, reboot, set/node), run to a verdict the
// VM itself confirms: the stream's progress is shown, then the VM is watched
// (observe + poll) and the decision table (decideOperation) says whether
// the step was applied. A lost stream thus ends as "applied" (with a warning
// that says the stream was lost, not that the step failed) or as a failure
// that quotes what the VM shows; a definite failure of the server is thrown
// as it is.
import type { GoPveQemuApi, OperationEvent } from "../../client";
import { HttpStatusError, OperationFailedError } from "../../client";
import { timingOf, LOSS_TEXT, duration, poll, streamProgress, errorText, safeCause } from "../core";
import type { LifecycleContext, PollRound, Redactor } from "../core";
import { boundMs, decideOperation, isLost } from "./step-rules";
import type { OperationVerdict, StreamReport, StreamedKind } from "./step-rules";
import { LifecycleError } from "../model";
import { lookAt } from "../observe";
import type { Look } from "../observe";
import { PROGRESS_EVERY_MS } from "../power";

export interface StepTarget {
  client: GoPveQemuApi;
  vmid: number;
  /** the real name the VM must still have */
  vmName?: string;
  label: string;
  ctx: LifecycleContext;
  redact: Redactor;
}

/** The power step of start / reboot: once it succeeded, the VM runs (the rest is the server's wait for SSH). */
const POWER_STEP: Record<StreamedKind, string | undefined> = {
  start: "starting VM",
  reboot: "rebooting VM",
  migrate: undefined,
};

/** Runs the operation and resolves once the VM shows it applied; throws otherwise. */
export async function runStreamed(t: StepTarget, kind: StreamedKind, targetNode?: string): Promise<void> {
  let powerStepDone = false;
  const progress = streamProgress(kind, t.ctx.reporter, t.redact);
  const onEvent = (ev: OperationEvent): void => {
    const step =
      ev.kind === "step" ? ev : ev.kind === "raw" && ev.recovered?.kind === "step" ? ev.recovered : undefined;
    if (step && step.status === "success" && step.step === POWER_STEP[kind]) powerStepDone = true;
    progress(ev);
  };
  let ended: StreamReport["ended"] = "success";
  try {
    await send(t, kind, targetNode, onEvent);
  } catch (err) {
    if (t.ctx.signal?.aborted || !mayRunOn(err)) throw err;
    ended = "lost";
    const after = err instanceof OperationFailedError && err.step ? ` after step "${err.step}"` : "";
    t.ctx.reporter.warn(
      `VM ${t.label}: the ${kind} stream was lost${after} (${lossText(err, t.redact)}); ` +
        "the server carries on without us: asking it whether the step was applied",
    );
    const verdict = await watch(t, { kind, ended, powerStepDone, targetNode });
    if (verdict.kind !== "applied") throw new LifecycleError(verdict.why, { cause: safeCause(err, t.redact) });
    t.ctx.reporter.warn(`VM ${t.label}: the ${kind} was applied (${verdict.why}), though its stream was lost`);
    return;
  }
  const verdict = await watch(t, { kind, ended, powerStepDone, targetNode });
  if (verdict.kind !== "applied") throw new LifecycleError(`${kind} of VM ${t.label} ${verdict.why}`);
}

/**
 * What a long watch says: a debug line when what the VM shows changes, and an
 * info line every ~30 s, so a migration watched for minutes is not silent.
 */
function waitingLines(t: StepTarget, report: StreamReport): (round: PollRound<Look>) => void {
  let lastWhy: string | undefined;
  let nextInfo = PROGRESS_EVERY_MS;
  return ({ value, elapsedMs }) => {
    const why = value ? decideOperation(report, value, false).why : "no answer";
    if (why !== lastWhy) t.ctx.reporter.debug(`VM ${t.label}: ${why}`);
    lastWhy = why;
    if (elapsedMs >= nextInfo) {
      t.ctx.reporter.info(`waiting for VM ${t.label} to show the ${report.kind} (${duration(elapsedMs)}): ${why}`);
      nextInfo = (Math.floor(elapsedMs / PROGRESS_EVERY_MS) + 1) * PROGRESS_EVERY_MS;
    }
  };
}

/**
 * The operation may run on after this failure: its stream was lost, or a
 * gateway that holds back whole answers gave up waiting (a JSON 5xx; the
 * server itself never answers these calls in JSON).
 */
function mayRunOn(err: unknown): boolean {
  if (err instanceof OperationFailedError) return isLost(err.shape);
  return err instanceof HttpStatusError && err.status >= 500 && err.body === "json";
}

/** How the stream was lost, in words, with what the client saw (e.g. `Invalid character in chunk size`). */
function lossText(err: unknown, redact: Redactor): string {
  if (err instanceof HttpStatusError) return redact(`a gateway answered HTTP ${err.status}: ${err.serverMessage}`);
  if (!(err instanceof OperationFailedError)) return errorText(err, redact);
  const how = LOSS_TEXT[err.shape] ?? err.shape;
  return err.serverMessage ? `${how}: ${redact(err.serverMessage.split("\n")[0]!)}` : how;
}

function send(
  t: StepTarget,
  kind: StreamedKind,
  targetNode: string | undefined,
  onEvent: (ev: OperationEvent) => void,
): Promise<unknown> {
  const opts = { signal: t.ctx.signal, onEvent };
  if (kind === "start") return t.client.start(t.vmid, opts);
  if (kind === "reboot") return t.client.reboot(t.vmid, opts);
  return t.client.migrate(t.vmid, targetNode!, opts);
}

/** Looks at the VM until the table says applied or failed, or its bound passes (then the last look decides). */
async function watch(t: StepTarget, report: StreamReport): Promise<OperationVerdict> {
  const bound = boundMs(report, timingOf(t.ctx));
  // A lost reboot is seen in its stopped moment only: read the live power state, and remember the stop.
  const live = report.kind === "reboot" && report.ended === "lost" && !report.powerStepDone;
  const look = async (signal?: AbortSignal): Promise<Look> => {
    const { look: seen } = await lookAt(
      t.client,
      t.vmid,
      { vmName: t.vmName, live },
      { redact: t.redact, signal, passCancel: true },
    );
    if (seen.kind === "present" && seen.running === false) report.stoppedSeen = true;
    return seen;
  };
  const result = await poll(t.ctx, {
    probe: look,
    done: (l) => decideOperation(report, l, false).kind !== "wait",
    timeoutMs: bound,
    onRound: waitingLines(t, report),
  });
  const last: Look = result.reached ? result.value : (result.last ?? { kind: "unreadable", error: "no answer" });
  const verdict = decideOperation(report, last, true);
  if (verdict.kind === "failed" && !result.reached)
    return { ...verdict, why: `${verdict.why} after ${duration(bound)}` };
  return verdict;
}
