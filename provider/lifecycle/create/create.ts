// Create: one install, followed to the end and confirmed with the server.
//
// The rule that shapes everything here: no VM is ever left outside state, and
// success is recorded only for an install that completed (or that the server
// can no longer undo). Each create is observe -> decide -> record:
// - before installing, the server's list and this machine's install journal:
//   a VM that only an interrupted create of this very resource can have made
//   (beforeInstall) is taken over, never duplicated, and an install of it that
//   the server may still be carrying out is waited for; a pinned VMID held by
//   any other VM is refused;
// - the install stream, with its facts and the phase it reached;
// - on failure, the decision table (decideFailure): a plain error,
//   a partial create, one retry, or following a lost stream (follow);
// - on success, the server confirms it (confirm: listed and running), and
//   any other VM that carries this resource's mark (a leftover of an earlier
//   interrupted create) is removed.
//
// Retries (only when nothing of the install was made): an auto-VMID install
// that loses the VMID race to ANOTHER client (fails at `VM creation > creating
// VM` while a VM with its VMID exists), and concurrent first installs on a
// fresh server racing to create its SSH key pair. Races within this process
// cannot happen (the install gates). A retry is no recovery: it starts clean,
// without the journal entry of the first attempt, which made nothing.
import { randomBytes } from "node:crypto";
import type { VmEntry } from "../../client";
import {
  connectionSecrets,
  endpointKey,
  resolveConnection,
  derivedName,
  stackName,
  CODES,
  LifecycleError,
  LIMITS,
  generatePassword,
} from "../model";
import { clockOf, errorText, redactor, safeCause } from "../core";
import type { InstallTicket, LifecycleContext } from "../core";
import { adopt } from "./adopt";
import {
  confirm,
  handleInstallFailure,
  beforeInstall,
  claimOf,
  installRequest,
  journalInstall,
  runInstall,
  awaitPending,
  takeOver,
  removeLeftovers,
  sweepLeftovers,
  sameNameOf,
} from "../install";
import type { AttemptEnd, CreateResult, InstallJob } from "../install";
import type { VmInputs } from "../model";

export type { CreateResult } from "../install";

export async function create(inputs: VmInputs, ctx: LifecycleContext): Promise<CreateResult> {
  if (inputs.adopt === true) return adopt(inputs, ctx);
  let base = jobOf(inputs, ctx);
  try {
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptInstall(base, attempt);
      if (outcome.kind === "done") return outcome.result;
      // The decision table allows one retry only: a second one comes back as a failure. A refusal
      // that showed the server's own node cannot come twice: the retry no longer names it.
      if (outcome.serverNode !== undefined) base = { ...base, serverNode: outcome.serverNode };
      ctx.reporter.warn(`${outcome.reason}; retrying the install once`);
      // A retry follows a first attempt that made nothing: its entry (the VMID it lost) is no evidence of anything,
      // and a deployment killed before the retry writes its own must not find it either.
      await forgetAttempt(base);
    }
  } finally {
    // The outcome is handed back now, and the entry is no longer needed; a cancelled create keeps
    // it: the server carries on, and the next create of this resource finds it.
    if (!ctx.signal?.aborted) await forgetAttempt(base);
  }
}

/** This resource's journal entry removed. */
async function forgetAttempt({ identity, ctx }: InstallJob): Promise<void> {
  if (identity !== undefined && ctx.urn !== undefined)
    await ctx.journal?.remove(identity, ctx.urn).catch(() => undefined);
}

function jobOf(inputs: VmInputs, ctx: LifecycleContext): InstallJob {
  const conn = resolveConnection(inputs.connection, ctx.connectionDefaults);
  const password = inputs.password ?? generatePassword();
  const job: InstallJob = {
    inputs,
    conn,
    client: ctx.client(conn),
    password,
    passwordGenerated: inputs.password === undefined,
    redact: redactor([password, ...connectionSecrets(conn)]),
    ctx,
    request: { os: inputs.os, version: inputs.version },
    key: endpointKey(conn.endpoint),
    name: inputs.name,
    marked: false,
    identity: ctx.identity,
    startedAt: clockOf(ctx).now(),
  };
  return job;
}

/**
 * The job of one attempt: it begins now, and a resource without a name gets
 * this stack's marked name for it (a stack whose identity the program did not
 * declare gets a mark no one can verify: unique, never taken over).
 */
function attemptOf(base: InstallJob): InstallJob {
  const startedAt = clockOf(base.ctx).now();
  const urn = base.ctx.urn;
  // The name the previous release derived from the URN is no name of the user's: its replacement gets a mark.
  const unnamed =
    base.inputs.name === undefined || (urn !== undefined && base.inputs.name === derivedName(urn, LIMITS.nameMax));
  const marked = unnamed && urn !== undefined && urn !== "";
  const key = base.identity ?? randomBytes(16).toString("hex");
  const name = marked ? stackName(key, urn, startedAt, LIMITS.nameMax) : base.inputs.name;
  const job = { ...base, startedAt, name, marked: marked && base.identity !== undefined };
  return { ...job, request: installRequest(job, base.password!) };
}

async function attemptInstall(base: InstallJob, attempt: number): Promise<AttemptEnd> {
  const { ctx, inputs } = base;
  const ticket = await ctx.process.installGates.acquire(base.key, inputs.vmid, ctx.signal);
  // Before the list: an install of the same name that overlaps this one's from here on is seen (sameNameOf).
  const hold = ctx.process.nameHolds.hold(base.key, inputs.name);
  try {
    const vms = await listBefore(base);
    // The journal tells of an earlier create of this resource; on a retry, it could only tell of this one's first attempt.
    const journal =
      attempt === 1 && base.identity && ctx.urn
        ? await ctx.journal?.get(base.identity, ctx.urn).catch(() => undefined)
        : undefined;
    const found = beforeInstall(vms, claimOf(base, journal));
    if (found.kind === "refuse") throw new LifecycleError(found.why, { code: CODES.vmidTaken });
    const before = new Set(vms.map((vm) => vm.vmid));
    if (found.kind === "interrupted") {
      ticket.created(); // nothing is installed here: the next auto install may start
      await removeLeftovers(
        base,
        found.leftovers.map((o) => o.entry),
      );
      return { kind: "done", result: await takeOver(base, found.own, before, ticket, journal) };
    }
    if (found.kind === "pending" && found.journal.vmid !== undefined) {
      ticket.created();
      return { kind: "done", result: await awaitPending(base, found.journal, before, ticket) };
    }
    const serverNode = base.serverNode ?? (await knownServerNode(base));
    const job = attemptOf({ ...base, serverNode });
    return await install({ ...job, sameName: sameNameOf(job, vms, hold) }, attempt, before, ticket);
  } finally {
    hold.release();
    ticket.finish();
  }
}

async function install(
  job: InstallJob,
  attempt: number,
  before: Set<number>,
  ticket: InstallTicket,
): Promise<AttemptEnd> {
  const { ctx, inputs } = job;
  ctx.reporter.info(
    `installing ${inputs.os} ${inputs.version} on ${job.conn.endpoint}` +
      (inputs.vmid !== undefined ? ` as VMID ${inputs.vmid}` : " (the server picks the VMID)") +
      // in the same line: one engine message fewer per VM
      (job.passwordGenerated
        ? "; no password given: a random one was generated (see the secret output `password`)"
        : ""),
  );
  await journalInstall(job);
  const run = await runInstall(job, ticket);
  if (!run.ok) return await handleInstallFailure(job, run.err, run.progress, before, ticket, attempt);
  ticket.created();
  for (const w of run.success.warnings) {
    ctx.reporter.debug(`install recovered: ${w.step}: ${job.redact(w.message)}`);
  }
  const result = await confirm(job, run.success.facts);
  await learnServerNode(job, result.state.node);
  if (job.marked) await sweepLeftovers(job, result.state.vmid);
  return { kind: "done", result };
}

/** The server's own node as this machine learned it; an unreadable record is no knowledge. */
async function knownServerNode(job: InstallJob): Promise<string | undefined> {
  return job.ctx.serverNodes?.get(job.conn.endpoint).catch(() => undefined);
}

/**
 * An install sent without `node` puts the VM on the server's own node: what the
 * list shows right after it completed is that node. One placed there by a record
 * that no longer holds (the server was reconfigured) is said, and migrates at the next `up`.
 */
async function learnServerNode(job: InstallJob, listed: string | undefined): Promise<void> {
  if (job.request.node !== undefined || listed === undefined) return;
  const { ctx, inputs } = job;
  // Written once per process and node (fileServerNodes): the record is dropped with the journal's entries a week after its last write.
  await ctx.serverNodes
    ?.learn(job.conn.endpoint, listed, "an install without node completed there")
    .catch((err: unknown) => ctx.reporter.debug(`the server's node could not be written down: ${String(err)}`));
  if (inputs.node !== undefined && inputs.node !== listed) {
    ctx.reporter.warn(
      `node ${inputs.node} was taken for the server's own node, but the install put the VM on ${listed}, ` +
        `which is the server's now: the next \`up\` migrates it to ${inputs.node}`,
    );
  }
}

/** The VMs that exist before the install. */
async function listBefore(job: InstallJob): Promise<VmEntry[]> {
  try {
    // Installs to one server wait for each other here (the install gates): no waiting for other lists.
    return (await job.client.list({ signal: job.ctx.signal, immediate: true })).vms;
  } catch (err) {
    throw new LifecycleError(
      `could not list the VMs on ${job.conn.endpoint} before installing (nothing was created): ${errorText(err, job.redact)}`,
      { cause: safeCause(err, job.redact), code: CODES.unreachable },
    );
  }
}
