// Running an update's planned steps in order, each logged. A failed step
// ends the update with a PartialUpdateError whose state is true to the VM:
// the applied steps, then one more look at the VM for what it really is, so
// the next `up` diffs against the truth and carries on from there. If a step
// fails after the VM was shut down to change it, and it should be running,
// one best-effort start brings it back; the error says whether that worked.
// A cancellation before any step was applied is passed on as it is.
import type { GoPveQemuApi } from "../../client";
import { HttpStatusError } from "../../client";
import type { LifecycleContext, ResolvedConnection, Redactor } from "../core";
import { PartialUpdateError, dropUndefined } from "../model";
import type { VmInputs, VmState } from "../model";
import { observe, observedFields } from "../observe";
import { describeStep } from "../plan";
import type { Step } from "../plan";
import { shutdownAndWait } from "../power";
import { errorText, safeCause } from "../core";
import { runStreamed } from "./streamed-step";

/** Everything one update needs, built once. */
export interface UpdateJob {
  id: string;
  vmid: number;
  old: VmState;
  news: VmInputs;
  conn: ResolvedConnection;
  client: GoPveQemuApi;
  redact: Redactor;
  ctx: LifecycleContext;
  label: string;
}

export async function runSteps(job: UpdateJob, steps: Step[], base: VmState): Promise<VmState> {
  const state: VmState = { ...base };
  const applied: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const what = describeStep(step);
    job.ctx.reporter.info(`VM ${job.label}: ${what}`);
    try {
      await runStep(job, step);
    } catch (err) {
      if (job.ctx.signal?.aborted && applied.length === 0) throw err;
      throw await partial(job, steps, i, state, applied, err);
    }
    applyToState(step, state);
    applied.push(what);
  }
  return state;
}

/** The PartialUpdateError for step `i` failing: recovery, the truth about the VM, what was and was not applied. */
async function partial(
  job: UpdateJob,
  steps: Step[],
  i: number,
  state: VmState,
  applied: string[],
  err: unknown,
): Promise<PartialUpdateError> {
  const { redact, label } = job;
  const notApplied = steps.slice(i).map(describeStep);
  const reasons = [`updating VM ${label} failed at "${describeStep(steps[i]!)}": ${errorText(err, redact)}`];
  const recovered = await recover(job, steps[i]!, steps, state, applied);
  if (recovered) reasons.push(recovered);
  await observeTruth(job, state);
  if (applied.length > 0) reasons.push(`applied: ${applied.join("; ")}`);
  reasons.push(`not applied: ${notApplied.join("; ")}`);
  // Triggers count as applied only once a reboot (or a restart) happened.
  if (!powerCycled(steps, i)) state.inputs = { ...state.inputs, rebootTriggers: job.old.inputs?.rebootTriggers };
  return new PartialUpdateError({
    id: job.id,
    state: dropUndefined(state),
    reasons,
    applied,
    notApplied,
    cause: safeCause(err, redact),
  });
}

/** After a failure: the VM's real values into the state (best effort; not after a cancellation). */
async function observeTruth(job: UpdateJob, state: VmState): Promise<void> {
  if (job.ctx.signal?.aborted) return;
  try {
    const seen = await observe(job.client, job.vmid, { vmName: state.vmName }, job.ctx.signal);
    if (seen.listed && seen.nameMatches) Object.assign(state, observedFields(seen, state));
  } catch {
    // the state of the applied steps is the best we know
  }
}

async function runStep(job: UpdateJob, step: Step): Promise<void> {
  const { client, vmid, label, ctx, redact } = job;
  const signal = ctx.signal;
  switch (step.kind) {
    case "shutdown": {
      const how = await shutdownAndWait(client, vmid, label, ctx, redact);
      if (how === "forced") ctx.reporter.warn(`VM ${label} had to be stopped hard`);
      return;
    }
    case "setCpu":
      return client.setCpu(vmid, step.cpu, { signal });
    case "setMemory":
      return client.setMemory(vmid, step.memoryMb, { signal });
    case "growDisk":
      return client.growDisk(vmid, step.byGb, { signal });
    case "migrate":
    case "start":
    case "reboot": {
      const target = { client, vmid, vmName: job.old.vmName, label, ctx, redact };
      return runStreamed(target, step.kind, step.kind === "migrate" ? step.node : undefined);
    }
  }
}

/** What each step, once it succeeded, makes true of the VM. */
const EFFECT: { [K in Step["kind"]]: (step: Extract<Step, { kind: K }>) => Partial<VmState> } = {
  shutdown: () => ({ running: false }),
  setCpu: (step) => ({ cpu: step.cpu }),
  setMemory: (step) => ({ memoryMb: step.memoryMb }),
  growDisk: (step) => ({ diskGb: step.toGb }),
  migrate: (step) => ({ node: step.node }),
  start: () => ({ running: true }),
  reboot: () => ({ running: true }),
};

/** The state after a step succeeded. */
function applyToState(step: Step, state: VmState): void {
  Object.assign(state, (EFFECT[step.kind] as (s: Step) => Partial<VmState>)(step));
}

/** A reboot, or a start after our shutdown, was applied before step `failedAt` (or none was needed). */
function powerCycled(steps: Step[], failedAt: number): boolean {
  const needed = steps.some((s) => s.kind === "reboot" || s.kind === "start");
  if (!needed) return true;
  return steps.slice(0, failedAt).some((s) => s.kind === "reboot" || s.kind === "start");
}

/**
 * After a failed config step on a VM we shut down and that should run: one
 * best-effort start. Returns a line for the reasons, or undefined.
 */
async function recover(
  job: UpdateJob,
  failed: Step,
  steps: Step[],
  state: VmState,
  applied: string[],
): Promise<string | undefined> {
  const { label, ctx, redact } = job;
  const weStopped = steps[0]?.kind === "shutdown" && applied.length > 0;
  const shouldRun = steps.some((s) => s.kind === "start");
  if (!weStopped || !shouldRun || failed.kind === "start" || failed.kind === "shutdown" || ctx.signal?.aborted)
    return undefined;
  ctx.reporter.info(`VM ${label}: starting it again after the failed step`);
  try {
    await runStep(job, { kind: "start", reason: "recovery after a failed step" });
    state.running = true;
    applied.push("start (to bring the VM back after the failed step)");
    return `VM ${label} was started again`;
  } catch (err) {
    const said = err instanceof HttpStatusError ? err.serverMessage : errorText(err, redact);
    return `starting VM ${label} again also failed (${redact(said)}): it is stopped`;
  }
}
