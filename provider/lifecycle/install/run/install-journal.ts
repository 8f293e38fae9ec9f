// This machine's install journal, as one install stream fills it: the VMID
// the server gave, the IP, and the furthest phase shown, which is what a
// deployment killed mid-install leaves the next one (takeOver, awaitPending).
import type { Phase } from "../../../client";
import { clockOf } from "../../core";
import type { InstallJob } from "../job";

/** What the journal holds of an install, as its stream told it: its VMID, and the furthest phase its stream showed, and when. */
interface JournalFacts {
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
export function journalWriter(job: InstallJob): {
  vmid(v: number): void;
  ip(ip: string): void;
  phase(p: Phase): void;
  /** Waits for the writes; the phase not yet written is written when the stream failed, dropped when it completed. */
  settled(completed: boolean): Promise<void>;
} {
  const known: JournalFacts = { vmid: job.inputs.vmid };
  let timer: NodeJS.Timeout | undefined;
  let next: JournalFacts | undefined;
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
    if (known.vmid === undefined) return;
    next = { ...known };
    busy ??= flush();
  };
  return {
    vmid(v) {
      if (known.vmid === v) return;
      known.vmid = v;
      write();
    },
    ip(ip) {
      if (known.ip === ip) return;
      known.ip = ip;
      // Said right after the VMID (the server's steps 2 and 3): written with the next write, or on its own.
      if (known.vmid !== undefined) timer ??= setTimeout(write, PHASE_WRITE_MS).unref();
    },
    phase(p) {
      known.reached = { phase: p, at: clockOf(job.ctx).now() };
      if (known.vmid !== undefined) timer ??= setTimeout(write, PHASE_WRITE_MS).unref();
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
export async function journalInstall(job: InstallJob, known: JournalFacts = { vmid: job.inputs.vmid }): Promise<void> {
  const { identity, ctx } = job;
  if (identity === undefined || ctx.urn === undefined || ctx.journal === undefined || known.vmid === undefined) return;
  const entry = {
    identity,
    urn: ctx.urn,
    endpoint: job.conn.endpoint,
    name: job.name,
    vmid: known.vmid,
    startedAt: job.startedAt,
    os: job.inputs.os,
    ...(known.ip !== undefined ? { ip: known.ip } : {}),
    ...(known.reached !== undefined ? { reached: known.reached } : {}),
  };
  await ctx.journal
    .put(entry)
    .catch((err: unknown) => ctx.reporter.debug(`the install journal could not be written: ${String(err)}`));
}
