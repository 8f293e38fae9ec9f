// One install stream: its facts and furthest phase kept as it goes (what a
// failure is then judged by), with the VMID gate told of each fact as it is
// learned, this machine's install journal written (install-journal.ts), and
// the VM's power watched while its SSH initialisation runs (power-watch.ts).
import type { InstallFacts, InstallSuccess, OperationEvent, Phase } from "../../../client";
import { STEP, phaseIndex, phaseOfEvent } from "../../../client";
import { installProgress } from "../../core";
import type { InstallTicket } from "../../core";
import type { FollowMemory } from "../rules";
import type { InstallJob } from "../job";
import { journalWriter } from "./install-journal";
import { sendsNode } from "./install-request";
import { StreamPower } from "./power-watch";

/** Proxmox's refusal of a migration to the node the VM is on, in `qm migrate`'s output. */
const LOCAL_NODE = /target is local node/;
/** The step name under which the server streams `qm migrate`'s output. */
const MIGRATION_OUTPUT = "migrating";

/** What the install's stream has shown so far: what a failure of it is judged by. */
export interface StreamProgress {
  facts: InstallFacts;
  step: string;
  phase: Phase;
  /** the migration the install named was refused: its `node` is the server's own */
  localNodeRefused?: boolean;
  /** what the VM's power showed while its stream was read (from SSH initialization on), for the follow */
  watched?: FollowMemory;
}

export type Run = { ok: true; success: InstallSuccess } | { ok: false; err: unknown; progress: StreamProgress };

/** The install stream, keeping the facts and the furthest phase it showed. */
export async function runInstall(job: InstallJob, ticket: InstallTicket): Promise<Run> {
  const withNode = sendsNode(job);
  const progress: StreamProgress = { facts: { vmCreated: false, completed: false }, step: "", phase: "checkVmid" };
  const report = installProgress(job.ctx.reporter, job.redact, withNode);
  const power = new StreamPower(job, withNode);
  const journal = journalWriter(job);
  const onEvent = (event: OperationEvent): void => {
    report(event);
    if (event.kind !== "step" && !(event.kind === "raw" && event.recovered?.kind === "step")) return;
    const ev = event.kind === "step" ? event : (event.recovered as Extract<OperationEvent, { kind: "step" }>);
    if (ev.step !== "") progress.step = ev.step;
    if (withNode && ev.step === MIGRATION_OUTPUT && LOCAL_NODE.test(ev.message)) progress.localNodeRefused = true;
    const phase = phaseOfEvent(ev.step, ev.status, ev.message, withNode);
    if (phase && phaseIndex(phase) > phaseIndex(progress.phase)) {
      progress.phase = phase;
      power.reached(phase, progress.facts.vmid ?? job.inputs.vmid);
      // What the server said, for a deployment that takes this install over after a kill.
      journal.phase(phase);
    }
    // The VMID is taken once this step succeeds: the next auto install may start.
    if (ev.step === STEP.creatingVm && ev.status === "success") ticket.created();
  };
  const onFacts = (f: InstallFacts): void => {
    progress.facts = f;
    if (f.vmid !== undefined) ticket.vmidKnown(f.vmid);
    if (f.vmCreated) ticket.created();
    if (f.vmid !== undefined) journal.vmid(f.vmid);
    if (f.ip !== undefined) journal.ip(f.ip);
  };
  let completed = false;
  try {
    const success = await job.client.install(job.request, { signal: job.ctx.signal, onEvent, onFacts });
    completed = true;
    return { ok: true, success };
  } catch (err) {
    return { ok: false, err, progress };
  } finally {
    const watched = power.stop();
    if (watched !== undefined) progress.watched = watched;
    // Written before the create ends, so that its removal of the entry comes after.
    await journal.settled(completed);
  }
}
