// Update in place: read the VM as it is now, plan (plan.ts), run the steps in
// order, and log each. A failed step ends the update with a
// PartialUpdateError whose state reflects exactly the steps that were applied
// (not the ones that were not), so the next `up` diffs against the truth and
// carries on from there.
//
// Decisions:
// - The plan is made from the VM read live (list + status), not from the
//   stored state: a VM stopped or changed outside Pulumi is planned correctly.
// - A VM that is gone, or whose VMID now names another VM, fails the update
//   with advice (refresh, then up) instead of creating anything here.
// - If a step fails after we shut the VM down to change it, and it should be
//   running, one best-effort start brings it back; the error says whether that
//   worked.
// - A changed connection is recorded; it is resolved field by field over the
//   stored one (not over the defaults: the VM lives where it was created).
import type { GoPveQemuApi } from "../client/api";
import { HttpStatusError } from "../client/errors";
import { connectionSecrets, resolveConnection } from "./connection";
import { timingOf } from "./context";
import type { LifecycleContext } from "./context";
import { disabledMessage } from "./delete";
import { LifecycleError, PartialUpdateError } from "./errors";
import type { VmInputs } from "./inputs";
import { diskFromList, memoryFromList } from "./listing";
import { describeStep, planUpdate } from "./plan";
import type { Step } from "./plan";
import { RUNNING, findEntry, isDisabled, listedEntry, seconds, shutdownAndWait, vmLabel, waitForStatus } from "./power";
import { streamProgress } from "./progress";
import { errorText, redactor, safeCause } from "./redact";
import type { Redactor } from "./redact";
import { desiredOf, dropUndefined, parseState } from "./state";
import type { VmState } from "./state";
import { targetUser } from "./targets";

export async function update(id: string, olds: VmState, news: VmInputs, ctx: LifecycleContext): Promise<VmState> {
  const old = parseState(olds, id);
  const conn = resolveConnection(news.connection, old.connection ?? ctx.connectionDefaults);
  const client = ctx.client(conn);
  const redact = redactor([
    news.password,
    old.password,
    ...connectionSecrets(conn),
    ...connectionSecrets(old.connection),
  ]);
  const vmid = old.vmid;
  let label = vmLabel(vmid, old.vmName);

  // The VM as it is now.
  const entry = await listedEntry(
    client,
    vmid,
    { endpoint: conn.endpoint, doing: `to update VM ${label}` },
    redact,
    ctx.signal,
  );
  if (entry === undefined) {
    throw new LifecycleError(
      `VM ${label} no longer exists on ${conn.endpoint}; run \`pulumi refresh\` to drop it from state, then \`pulumi up\` creates it again`,
    );
  }
  const disabled = isDisabled(entry);
  if (!disabled && old.vmName !== undefined && entry.name !== old.vmName) {
    throw new LifecycleError(
      `VMID ${vmid} on ${conn.endpoint} now belongs to a VM named ${JSON.stringify(entry.name)}, not ${JSON.stringify(old.vmName)}; ` +
        "this resource's VM is gone: run `pulumi refresh`, then `pulumi up`",
    );
  }
  label = vmLabel(vmid, disabled ? old.vmName : entry.name);
  const status = disabled ? undefined : await client.status(vmid, { signal: ctx.signal }).catch(() => undefined);
  const current: VmState = dropUndefined({
    ...old,
    vmName: disabled ? old.vmName : entry.name,
    node: disabled ? old.node : entry.node,
    cpu: disabled ? old.cpu : entry.cpu,
    memoryMb: disabled ? old.memoryMb : memoryFromList(entry.memory, old.memoryMb),
    diskGb: disabled ? old.diskGb : diskFromList(entry.disk, old.diskGb),
    running: status !== undefined ? status === RUNNING : disabled ? old.running : entry.running,
    disabled: disabled ? true : undefined,
  });

  const steps = planUpdate(current, news);
  if (steps.length > 0 && disabled) throw new LifecycleError(disabledMessage(label));
  if (old.installComplete === false) {
    ctx.reporter.warn(
      `VM ${label} comes from an install that did not finish (${old.installProblem ?? "reason unknown"}); this update reconciles ` +
        "its settings and power state but cannot finish the installation: `pulumi up --replace` reinstalls it",
    );
  }
  if (steps.length === 0) ctx.reporter.debug(`VM ${label}: nothing to change on the server; recording the new inputs`);

  // What the state says once everything is applied, minus what the steps still change.
  const base: VmState = dropUndefined({
    ...current,
    os: current.os ?? news.os,
    version: current.version ?? news.version,
    user: current.user ?? targetUser(news.user, news.os),
    password: news.password ?? old.password,
    passwordGenerated: news.password !== undefined ? undefined : old.passwordGenerated,
    connection: conn,
    inputs: desiredOf(news),
    imported: undefined,
  });

  const state: VmState = { ...base };
  const applied: string[] = [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const what = describeStep(step);
    ctx.reporter.info(`VM ${label}: ${what}`);
    try {
      await runStep(step, client, vmid, label, ctx, redact);
    } catch (err) {
      const notApplied = steps.slice(i).map(describeStep);
      const reasons = [`updating VM ${label} failed at "${what}": ${errorText(err, redact)}`];
      const recovered = await recover(step, steps, state, client, vmid, label, ctx, redact, applied);
      if (recovered) reasons.push(recovered);
      if (applied.length > 0) reasons.push(`applied: ${applied.join("; ")}`);
      reasons.push(`not applied: ${notApplied.join("; ")}`);
      // Triggers count as applied only once a reboot (or a restart) happened.
      if (!powerCycled(steps, i)) state.inputs = { ...state.inputs, rebootTriggers: old.inputs?.rebootTriggers };
      throw new PartialUpdateError({
        id,
        state: dropUndefined(state),
        reasons,
        applied,
        notApplied,
        cause: safeCause(err, redact),
      });
    }
    applyToState(step, state);
    applied.push(what);
  }
  if (applied.length > 0) ctx.reporter.info(`VM ${label} is updated`);
  return dropUndefined(state);
}

async function runStep(
  step: Step,
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
): Promise<void> {
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
    case "migrate": {
      await client.migrate(vmid, step.node, { signal, onEvent: streamProgress("migrate", ctx.reporter, redact) });
      const after = await findEntry(client, vmid, signal);
      if (after === undefined) throw new LifecycleError(`VM ${label} is no longer listed after migrating it`);
      if (after.node !== step.node) {
        throw new LifecycleError(
          `the migration of VM ${label} reported success, but the VM is on node ${after.node}, not ${step.node}`,
        );
      }
      return;
    }
    case "start":
    case "reboot": {
      if (step.kind === "start")
        await client.start(vmid, { signal, onEvent: streamProgress("start", ctx.reporter, redact) });
      else await client.reboot(vmid, { signal, onEvent: streamProgress("reboot", ctx.reporter, redact) });
      const { confirmTimeoutMs } = timingOf(ctx);
      const waited = await waitForStatus(client, vmid, RUNNING, confirmTimeoutMs, ctx);
      if (!waited.reached) {
        throw new LifecycleError(
          `${step.kind} of VM ${label} reported success, but its status is ${waited.last ?? "unreadable"} after ${seconds(confirmTimeoutMs)}`,
        );
      }
      return;
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
  failed: Step,
  steps: Step[],
  state: VmState,
  client: GoPveQemuApi,
  vmid: number,
  label: string,
  ctx: LifecycleContext,
  redact: Redactor,
  applied: string[],
): Promise<string | undefined> {
  const weStopped = steps[0]?.kind === "shutdown" && applied.length > 0;
  const shouldRun = steps.some((s) => s.kind === "start");
  if (!weStopped || !shouldRun || failed.kind === "start" || failed.kind === "shutdown" || ctx.signal?.aborted)
    return undefined;
  ctx.reporter.info(`VM ${label}: starting it again after the failed step`);
  try {
    await runStep({ kind: "start", reason: "recovery after a failed step" }, client, vmid, label, ctx, redact);
    state.running = true;
    applied.push("start (to bring the VM back after the failed step)");
    return `VM ${label} was started again`;
  } catch (err) {
    const said = err instanceof HttpStatusError ? err.serverMessage : errorText(err, redact);
    return `starting VM ${label} again also failed (${redact(said)}): it is stopped`;
  }
}
