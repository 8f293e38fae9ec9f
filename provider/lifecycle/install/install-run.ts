// One install request and its stream: the body the server is sent, and the
// stream's facts and furthest phase kept as it goes (what a failure is then
// judged by), with the VMID gate and this machine's install journal told of
// each fact as it is learned.
import type { InstallRequest, InstallFacts, InstallSuccess, OperationEvent, Phase } from "../../client";
import { STEP, phaseIndex, phaseOfEvent } from "../../client";
import { clockOf, installProgress } from "../core";
import { StreamPower } from "./power-watch";
import type { Progress } from "./classify-failure";
import { SERVER_DEFAULTS, dropUndefined } from "../model";
import type { InstallJob } from "./record";
import type { InstallTicket } from "./vmid-lock";

export type Run = { ok: true; success: InstallSuccess } | { ok: false; err: unknown; progress: Progress };

/**
 * The server's install body. cpu, ram and disk are always sent, with the
 * documented defaults (2, 2048 MB, 16 GiB) for omitted inputs: the server's
 * code validates them BEFORE applying its defaults, so an omitted cpu would
 * become 1 and an omitted ram 512, unlike its docs. Sending them gives the same
 * VM on either behaviour, and "omitted" keeps meaning the documented default.
 */
export function installRequest(job: Pick<InstallJob, "inputs" | "name">, password: string): InstallRequest {
  const { inputs } = job;
  return dropUndefined({
    os: inputs.os,
    version: inputs.version,
    name: job.name,
    id: inputs.vmid,
    node: inputs.node,
    cpu: inputs.cpu ?? SERVER_DEFAULTS.cpu,
    ram: inputs.memoryMb ?? SERVER_DEFAULTS.memoryMb,
    disk: `${inputs.diskGb ?? SERVER_DEFAULTS.diskGb}G`,
    user: inputs.user,
    passwd: password,
    pubkey: inputs.sshPublicKey?.trim(),
  });
}

/** The install stream, keeping the facts and the furthest phase it showed. */
export async function runInstall(job: InstallJob, ticket: InstallTicket): Promise<Run> {
  const withNode = job.inputs.node !== undefined;
  const progress: Progress = { facts: { vmCreated: false, completed: false }, step: "", phase: "checkVmid" };
  const report = installProgress(job.ctx.reporter, job.redact, withNode);
  const power = new StreamPower(job, withNode);
  // One write at a time, each with everything known so far: the journal's file is whole after each.
  const seen: { vmid?: number; phase?: Phase } = { vmid: job.inputs.vmid };
  let written = Promise.resolve();
  const journal = (patch: { vmid?: number; phase?: Phase }): void => {
    Object.assign(seen, patch);
    const now = { ...seen };
    written = written.then(() => journalInstall(job, now));
  };
  const onEvent = (event: OperationEvent): void => {
    report(event);
    if (event.kind !== "step" && !(event.kind === "raw" && event.recovered?.kind === "step")) return;
    const ev = event.kind === "step" ? event : (event.recovered as Extract<OperationEvent, { kind: "step" }>);
    if (ev.step !== "") progress.step = ev.step;
    const phase = phaseOfEvent(ev.step, ev.status, ev.message, withNode);
    if (phase && phaseIndex(phase) > phaseIndex(progress.phase)) {
      progress.phase = phase;
      power.reached(phase, progress.facts.vmid ?? job.inputs.vmid);
      // What the server said, for a deployment that takes this install over after a kill.
      journal({ phase });
    }
    // The VMID is taken once this step succeeds: the next auto install may start.
    if (ev.step === STEP.creatingVm && ev.status === "success") ticket.created();
  };
  const onFacts = (f: InstallFacts): void => {
    progress.facts = f;
    if (f.vmid !== undefined) ticket.vmidKnown(f.vmid);
    if (f.vmCreated) ticket.created();
    if (f.vmid !== undefined && seen.vmid !== f.vmid) journal({ vmid: f.vmid });
  };
  try {
    return { ok: true, success: await job.client.install(job.request, { signal: job.ctx.signal, onEvent, onFacts }) };
  } catch (err) {
    return { ok: false, err, progress };
  } finally {
    const watched = power.stop();
    if (watched !== undefined) progress.watched = watched;
    // Written before the create ends, so that its removal of the entry comes after.
    await written;
  }
}

/**
 * This install in the journal: as it is about to be sent, and again with the
 * VMID the server gave, which is what a killed deployment leaves the next one.
 */
export async function journalInstall(
  job: InstallJob,
  seen: { vmid?: number; phase?: Phase } = { vmid: job.inputs.vmid },
): Promise<void> {
  const { identity, ctx } = job;
  if (identity === undefined || ctx.urn === undefined || ctx.journal === undefined) return;
  const entry = {
    identity,
    urn: ctx.urn,
    endpoint: job.conn.endpoint,
    name: job.name,
    vmid: seen.vmid,
    startedAt: job.startedAt,
    os: job.inputs.os,
    ...(seen.phase !== undefined ? { reached: { phase: seen.phase, at: clockOf(ctx).now() } } : {}),
  };
  await ctx.journal
    .put(entry)
    .catch((err: unknown) => ctx.reporter.debug(`the install journal could not be written: ${String(err)}`));
}
