// One install request and its stream: the body the server is sent, and the
// stream's facts and furthest phase kept as it goes (what a failure is then
// judged by), with the VMID gate told of each fact as it is learned, and this
// machine's install journal of those a recovery after a kill reads.
import type { InstallRequest, InstallFacts, InstallSuccess, OperationEvent, Phase } from "../../client";
import { STEP, phaseIndex, phaseOfEvent } from "../../client";
import { clockOf, installProgress } from "../core";
import { StreamPower } from "./power-watch";
import type { Progress } from "./classify-failure";
import { SERVER_DEFAULTS, dropUndefined } from "../model";
import type { InstallJob } from "./job";
import type { InstallTicket } from "../core";

/** Proxmox's refusal of a migration to the node the VM is on, in `qm migrate`'s output. */
const LOCAL_NODE = /target is local node/;
/** The step name under which the server streams `qm migrate`'s output. */
const MIGRATION_OUTPUT = "migrating";

export type Run = { ok: true; success: InstallSuccess } | { ok: false; err: unknown; progress: Progress };

/**
 * The server's install body. cpu, ram and disk are always sent, with the
 * documented defaults (2, 2048 MB, 16 GiB) for omitted inputs: the server's
 * code validates them BEFORE applying its defaults, so an omitted cpu would
 * become 1 and an omitted ram 512, unlike its docs. Sending them gives the same
 * VM on either behaviour, and "omitted" keeps meaning the documented default.
 */
export function installRequest(
  job: Pick<InstallJob, "inputs" | "name" | "serverNode">,
  password: string,
): InstallRequest {
  const { inputs } = job;
  return dropUndefined({
    os: inputs.os,
    version: inputs.version,
    name: job.name,
    id: inputs.vmid,
    node: sendsNode(job) ? inputs.node : undefined,
    cpu: inputs.cpu ?? SERVER_DEFAULTS.cpu,
    ram: inputs.memoryMb ?? SERVER_DEFAULTS.memoryMb,
    disk: `${inputs.diskGb ?? SERVER_DEFAULTS.diskGb}G`,
    user: inputs.user,
    passwd: password,
    pubkey: inputs.sshPublicKey?.trim(),
  });
}

/**
 * The install names `node`, and so migrates: unless that node is the server's
 * own, where the server creates every VM, and to which Proxmox refuses to migrate it.
 */
export function sendsNode(job: Pick<InstallJob, "inputs" | "serverNode">): boolean {
  return job.inputs.node !== undefined && job.inputs.node !== job.serverNode;
}

/** The install stream, keeping the facts and the furthest phase it showed. */
export async function runInstall(job: InstallJob, ticket: InstallTicket): Promise<Run> {
  const withNode = sendsNode(job);
  const progress: Progress = { facts: { vmCreated: false, completed: false }, step: "", phase: "checkVmid" };
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

/** What the journal holds of an install: its VMID, and the furthest phase its stream showed, and when. */
interface Seen {
  vmid?: number;
  ip?: string;
  reached?: { phase: Phase; at: number };
}

/**
 * A phase is written at most this often, with the latest: a kill -9 loses
 * at most the phases of the last second, and then a recovery bounds the
 * install from the phase before (a bound that still holds, only looser).
 * An install whose steps come at once (a fleet's on a fast server) writes
 * its VMID, and no phase it has already left.
 */
const PHASE_WRITE_MS = 1_000;

/**
 * The journal's writer for one install stream: one write at a time, each with
 * everything known so far (the file is whole after each); facts that come
 * while one is being written are written together next, the latest only.
 */
function journalWriter(job: InstallJob): {
  vmid(v: number): void;
  ip(ip: string): void;
  phase(p: Phase): void;
  /** Waits for the writes; the phase not yet written is written when the stream failed, dropped when it completed. */
  settled(completed: boolean): Promise<void>;
} {
  const seen: Seen = { vmid: job.inputs.vmid };
  let timer: NodeJS.Timeout | undefined;
  let next: Seen | undefined;
  let busy: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    for (let s = next; s !== undefined; s = next) {
      next = undefined;
      await journalInstall(job, s);
    }
    busy = undefined;
  };
  const write = (): void => {
    clearTimeout(timer);
    timer = undefined;
    // An entry without its VMID is no evidence of anything: the first is written once the server names it.
    if (seen.vmid === undefined) return;
    next = { ...seen };
    busy ??= flush();
  };
  return {
    vmid(v) {
      if (seen.vmid === v) return;
      seen.vmid = v;
      write();
    },
    ip(ip) {
      if (seen.ip === ip) return;
      seen.ip = ip;
      // Said right after the VMID (the server's steps 2 and 3): written with the next write, or on its own.
      if (seen.vmid !== undefined) timer ??= setTimeout(write, PHASE_WRITE_MS).unref();
    },
    phase(p) {
      seen.reached = { phase: p, at: clockOf(job.ctx).now() };
      if (seen.vmid !== undefined) timer ??= setTimeout(write, PHASE_WRITE_MS).unref();
    },
    settled(completed) {
      if (completed) clearTimeout(timer);
      else if (timer !== undefined) write();
      return busy ?? Promise.resolve();
    },
  };
}

/**
 * This install in the journal: as it is about to be sent when its VMID is
 * pinned, and with the VMID the server gave and the phases its stream showed,
 * which is what a killed deployment leaves the next one. An entry without a
 * VMID is never written: a recovery finds nothing by it.
 */
export async function journalInstall(job: InstallJob, seen: Seen = { vmid: job.inputs.vmid }): Promise<void> {
  const { identity, ctx } = job;
  if (identity === undefined || ctx.urn === undefined || ctx.journal === undefined || seen.vmid === undefined) return;
  const entry = {
    identity,
    urn: ctx.urn,
    endpoint: job.conn.endpoint,
    name: job.name,
    vmid: seen.vmid,
    startedAt: job.startedAt,
    os: job.inputs.os,
    ...(seen.ip !== undefined ? { ip: seen.ip } : {}),
    ...(seen.reached !== undefined ? { reached: seen.reached } : {}),
  };
  await ctx.journal
    .put(entry)
    .catch((err: unknown) => ctx.reporter.debug(`the install journal could not be written: ${String(err)}`));
}
