// Update in place: observe the VM as it is now, plan (plan.ts), run the
// steps in order, and log each. A failed step ends the update with a
// PartialUpdateError whose state is true to the VM: the applied steps, then
// one more look at the VM (observe.ts) for what it really is, so the next
// `up` diffs against the truth and carries on from there.
//
// Decisions:
// - The plan is made from the VM observed live (observe.ts), not from the
//   stored state: a VM stopped or changed outside Pulumi is planned correctly.
// - A VM that is gone, or whose VMID now names another VM, fails the update
//   with advice (refresh, then up) instead of creating anything here.
// - A streamed step whose stream is lost is settled by watching the VM
//   (streamed-step.ts): the real server often breaks its own streams.
// - If a step fails after we shut the VM down to change it, and it should be
//   running, one best-effort start brings it back; the error says whether that
//   worked.
// - A cancellation before any step was applied is rethrown as it is (nothing
//   changed); after, it is a PartialUpdateError with the applied steps.
// - A changed connection is recorded; it is resolved field by field over the
//   stored one (not over the defaults: the VM lives where it was created).
import type { GoPveQemuApi } from "../client";
import { HttpStatusError } from "../client";
import { connectionSecrets, resolveConnection } from "./connection";
import type { LifecycleContext, ResolvedConnection } from "./context";
import { disabledMessage } from "./delete";
import { LifecycleError, PartialUpdateError } from "./errors";
import type { VmInputs } from "./inputs";
import { vmLabel } from "./labels";
import { observe, observeFor, observedFields } from "./observe";
import { describeStep, planUpdate } from "./plan";
import type { Step } from "./plan";
import { shutdownAndWait } from "./power";
import { errorText, redactor, safeCause } from "./redact";
import { followUnconfirmed } from "./settle-follow";
import { settleInstall } from "./settle-install";
import type { Redactor } from "./redact";
import { desiredOf, dropUndefined, parseState } from "./state";
import type { VmState } from "./state";
import { runStreamed } from "./streamed-step";
import { targetUser } from "./targets";

/** Everything one update needs, built once. */
interface UpdateJob {
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

export async function update(id: string, olds: VmState, news: VmInputs, ctx: LifecycleContext): Promise<VmState> {
  const job = prepare(id, olds, news, ctx);
  const current = await observeCurrent(job);
  const steps = planUpdate(current, news);
  if (steps.length > 0 && current.disabled) throw new LifecycleError(disabledMessage(job.label));
  if (current.installComplete === false) {
    ctx.reporter.warn(
      `VM ${job.label} comes from an install that did not finish (${current.installProblem ?? "reason unknown"}); this update reconciles ` +
        "its settings and power state but cannot finish the installation: `pulumi up --replace` reinstalls it",
    );
  }
  if (steps.length === 0)
    ctx.reporter.debug(`VM ${job.label}: nothing to change on the server; recording the new inputs`);
  const state = await runSteps(job, steps, targetBase(job, current));
  if (steps.length > 0) ctx.reporter.info(`VM ${job.label} is updated`);
  return dropUndefined(state);
}

function prepare(id: string, olds: VmState, news: VmInputs, ctx: LifecycleContext): UpdateJob {
  const old = parseState(olds, id);
  const conn = resolveConnection(news.connection, old.connection ?? ctx.connectionDefaults);
  const redact = redactor([
    news.password,
    old.password,
    ...connectionSecrets(conn),
    ...connectionSecrets(old.connection),
  ]);
  const label = vmLabel(old.vmid, old.vmName);
  return { id, vmid: old.vmid, old, news, conn, client: ctx.client(conn), redact, ctx, label };
}

/** The VM as it is now, over the stored state; gone or reused VMIDs are errors with advice. */
async function observeCurrent(job: UpdateJob): Promise<VmState> {
  const { old, conn, vmid } = job;
  const what = { endpoint: conn.endpoint, doing: `to update VM ${job.label}`, redact: job.redact };
  const seen = await observeFor(job.client, vmid, { vmName: old.vmName }, what, job.ctx.signal);
  if (!seen.listed) throw new LifecycleError(goneMessage(job));
  if (!seen.nameMatches) {
    throw new LifecycleError(
      `VMID ${vmid} on ${conn.endpoint} now belongs to a VM named ${JSON.stringify(seen.entry?.name)}, not ${JSON.stringify(old.vmName)}; ` +
        "this resource's VM is gone: run `pulumi refresh`, then `pulumi up`",
    );
  }
  const current = dropUndefined({ ...old, ...observedFields(seen, old) });
  job.label = vmLabel(vmid, current.vmName);
  const looked = settleInstall(current, seen, job.ctx, job.label);
  // Still unconfirmed after one look: followed to a verdict before any step can act on it (a
  // disabled VM shows nothing to follow, and no step may act on it anyway).
  const settled = looked === undefined || seen.disabled ? looked : await followUnconfirmed(job, looked);
  if (settled === undefined) throw new LifecycleError(goneMessage(job));
  return dropUndefined(settled);
}

function goneMessage(job: UpdateJob): string {
  return (
    `VM ${job.label} no longer exists on ${job.conn.endpoint}; run \`pulumi refresh\` to drop it from state, ` +
    "then `pulumi up` creates it again"
  );
}

/** What the state says once everything is applied, minus what the steps still change. */
function targetBase(job: UpdateJob, current: VmState): VmState {
  const { news, old } = job;
  return dropUndefined({
    ...current,
    os: current.os ?? news.os,
    version: current.version ?? news.version,
    user: current.user ?? targetUser(news.user, news.os),
    ...passwordOf(news, old),
    connection: job.conn,
    inputs: desiredOf(news),
  });
}

/** The password as state keeps it: the new one or the old, or with storePassword false only its hash. */
function passwordOf(news: VmInputs, old: VmState): Pick<VmState, "password" | "passwordGenerated" | "passwordHash"> {
  const none = { password: undefined, passwordGenerated: undefined, passwordHash: undefined };
  if (news.storePassword === false) return { ...none, passwordHash: news.passwordHash };
  if (news.password !== undefined) return { ...none, password: news.password };
  return { ...none, password: old.password, passwordGenerated: old.passwordGenerated };
}

async function runSteps(job: UpdateJob, steps: Step[], base: VmState): Promise<VmState> {
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

/** The state after a step succeeded. */
function applyToState(step: Step, state: VmState): void {
  switch (step.kind) {
    case "shutdown":
      state.running = false;
      return;
    case "setCpu":
      state.cpu = step.cpu;
      return;
    case "setMemory":
      state.memoryMb = step.memoryMb;
      return;
    case "growDisk":
      state.diskGb = step.toGb;
      return;
    case "migrate":
      state.node = step.node;
      return;
    case "start":
    case "reboot":
      state.running = true;
      return;
  }
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
