// Create: one install, followed to the end and confirmed with the server.
//
// The rule that shapes everything here: no VM is ever left outside state.
// When the install fails, the server is asked what exists, and
// - a VM of ours exists -> PartialCreateError (state true to the VM), or with
//   destroyOnCreateFailure it is destroyed at once and a plain error says so;
// - nothing of ours exists -> a plain error with the server's words, no state;
// - the stream was lost (dropped, silent, too long) -> the server carries on
//   without us, so the outcome is followed by polling (follow.ts).
//
// Decisions where the brief is silent:
// - Before each install the server's list is read once: a pinned VMID that is
//   already taken fails at once (naming the VM that holds it), and VMs that
//   existed before the install are never mistaken for ours afterwards.
// - An auto-VMID install that loses the VMID race to ANOTHER client (it fails
//   at `VM creation > creating VM` while a VM with its VMID now exists) is
//   retried once, automatically: the server's own `qm create` failed, so
//   nothing of ours was made, and the retry picks the next free VMID. Races
//   within this process cannot happen (vmid-lock.ts).
// - Likewise an install that fails at `SSH preparation > creating SSH key`:
//   on a fresh server (no SSH key pair yet) concurrent first installs all try
//   to create the key pair and all but one fail there, before any VM exists.
//   The key pair exists by then, so one retry goes through.
// - A cancelled install (AbortSignal) whose VMID is known is recorded as
//   partial even if the VM is not listed yet: the server may still create it,
//   and a refresh drops it from state if it never appears.
// - The install's success is confirmed by `list` (the VMID is listed) and
//   `status` (running). Completed but not running (within confirmTimeoutMs)
//   is a partial create.
import { ConnectionError, HttpStatusError, OperationFailedError } from "../client/errors";
import type { VmEntry } from "../client/schemas";
import type { InstallFacts, InstallSuccess } from "../client/stream/types";
import { connectionSecrets, endpointKey, resolveConnection } from "./connection";
import { timingOf, sleep } from "./context";
import type { LifecycleContext } from "./context";
import { LifecycleError } from "./errors";
import { follow } from "./follow";
import { SERVER_DEFAULTS } from "./inputs";
import type { VmInputs } from "./inputs";
import { adopt } from "./adopt";
import { failWithVm, finishCreate } from "./outcome";
import type { CreateResult, InstallJob, Sighting } from "./outcome";
import { generatePassword } from "./password";
import { RUNNING, findEntry, seconds, vmLabel, waitForStatus } from "./power";
import { CREATING_VM_STEP, SSH_KEY_CREATE_STEP, SSH_KEY_STEP, installProgress } from "./progress";
import { errorText, redactor, safeCause } from "./redact";
import { dropUndefined } from "./state";
import { acquireInstallSlot } from "./vmid-lock";
import type { InstallTicket } from "./vmid-lock";
import type { InstallRequest } from "../client/schemas";

export type { CreateResult } from "./outcome";

export async function create(inputs: VmInputs, ctx: LifecycleContext): Promise<CreateResult> {
  if (inputs.adopt === true) return adopt(inputs, ctx);
  const conn = resolveConnection(inputs.connection, ctx.connectionDefaults);
  const passwordGenerated = inputs.password === undefined;
  const password = inputs.password ?? generatePassword();
  const job: InstallJob = {
    inputs,
    conn,
    client: ctx.client(conn),
    password,
    passwordGenerated,
    redact: redactor([password, ...connectionSecrets(conn)]),
    ctx,
    request: installRequest(inputs, password),
    key: endpointKey(conn.endpoint),
  };
  if (passwordGenerated)
    ctx.reporter.info("no password given: a random one was generated (see the secret output `password`)");

  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptInstall(job);
    if (outcome.kind === "done") return outcome.result;
    if (attempt >= 2) throw new LifecycleError(`${outcome.reason}; it happened again on the retry. ${outcome.advice}`);
    ctx.reporter.warn(`${outcome.reason}; retrying the install once`);
  }
}

/**
 * The server's install body. cpu, ram and disk are always sent, with the
 * documented defaults (2, 2048 MB, 16 GiB) for omitted inputs: the server's
 * code validates them BEFORE applying its defaults, so an omitted cpu would
 * become 1 and an omitted ram 512, unlike its docs. Sending them gives the same
 * VM on either behaviour, and "omitted" keeps meaning the documented default.
 */
export function installRequest(inputs: VmInputs, password: string): InstallRequest {
  return dropUndefined({
    os: inputs.os,
    version: inputs.version,
    name: inputs.name,
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

/** A retry is safe only when nothing of the install was created; `advice` is for when the retry fails too. */
type Attempt = { kind: "done"; result: CreateResult } | { kind: "retry"; reason: string; advice: string };

async function attemptInstall(job: InstallJob): Promise<Attempt> {
  const { ctx, client, inputs, redact } = job;
  const ticket = await acquireInstallSlot(job.key, inputs.vmid, ctx.signal);
  try {
    const before = await snapshot(job);
    let facts: InstallFacts = { vmCreated: false, completed: false };
    const progress = installProgress(ctx.reporter, redact, inputs.node !== undefined);
    ctx.reporter.info(
      `installing ${inputs.os} ${inputs.version} on ${job.conn.endpoint}` +
        (inputs.vmid !== undefined ? ` as VMID ${inputs.vmid}` : " (the server picks the VMID)"),
    );
    let success: InstallSuccess;
    try {
      success = await client.install(job.request, {
        signal: ctx.signal,
        onEvent: (event) => {
          progress(event);
          // The VMID is taken once this step succeeds: the next auto install may start.
          if (event.kind === "step" && event.step === CREATING_VM_STEP && event.status === "success") ticket.created();
        },
        onFacts: (f) => {
          facts = f;
          if (f.vmid !== undefined) ticket.vmidKnown(f.vmid);
          if (f.vmCreated) ticket.created();
        },
      });
    } catch (err) {
      return await settleFailure(job, err, facts, before, ticket);
    }
    ticket.created();
    for (const w of success.warnings) ctx.reporter.debug(`install recovered: ${w.step}: ${redact(w.message)}`);
    return { kind: "done", result: await confirm(job, success.facts) };
  } finally {
    ticket.finish();
  }
}

/** The VMIDs that exist before the install; a pinned VMID that is taken fails here. */
async function snapshot(job: InstallJob): Promise<Set<number>> {
  let vms: VmEntry[];
  try {
    vms = (await job.client.list({ signal: job.ctx.signal })).vms;
  } catch (err) {
    throw new LifecycleError(
      `could not list the VMs on ${job.conn.endpoint} before installing (nothing was created): ${errorText(err, job.redact)}`,
      { cause: safeCause(err, job.redact) },
    );
  }
  const pinned = job.inputs.vmid;
  const taken = pinned === undefined ? undefined : vms.find((vm) => vm.vmid === pinned);
  if (taken) {
    throw new LifecycleError(
      `vmid ${pinned} is already in use on ${job.conn.endpoint} by VM "${taken.name}" (node ${taken.node}); ` +
        "pin another vmid, or omit it to let the server pick one",
    );
  }
  return new Set(vms.map((vm) => vm.vmid));
}

/** The install reported completion: confirm with list and status, then finish (power state, clamps). */
async function confirm(job: InstallJob, facts: InstallFacts & { vmid: number }): Promise<CreateResult> {
  const { ctx, client } = job;
  const timing = timingOf(ctx);
  const label = vmLabel(facts.vmid, facts.realName);
  const deadline = Date.now() + timing.confirmTimeoutMs;
  let entry: VmEntry | undefined;
  let answered = false;
  let listError: unknown;
  for (;;) {
    try {
      entry = await findEntry(client, facts.vmid, ctx.signal);
      answered = true;
    } catch (err) {
      listError = err;
    }
    if (entry || Date.now() >= deadline) break;
    await sleep(timing.pollIntervalMs, ctx.signal);
  }
  if (!entry && !answered) {
    // The install completed, so the VM exists; the server just cannot say more now.
    return failWithVm(
      job,
      { facts },
      [
        `the install of VM ${label} completed, but the server's list could not be read to confirm it: ${errorText(listError, job.redact)}`,
      ],
      listError,
    );
  }
  if (!entry) {
    throw new LifecycleError(
      `the install of VM ${label} reported success, but the server does not list VMID ${facts.vmid} ` +
        `(checked for ${seconds(timing.confirmTimeoutMs)}); nothing was recorded`,
    );
  }
  const waited = await waitForStatus(client, facts.vmid, RUNNING, timing.confirmTimeoutMs, ctx);
  const sighting: Sighting = { facts, entry, status: waited.last };
  if (!waited.reached) {
    return failWithVm(job, sighting, [
      `the install of VM ${label} completed, but its status is ${waited.last ?? "unreadable"}, not running`,
    ]);
  }
  return finishCreate(job, sighting, true);
}

/** The install threw: find out what exists, then fail accordingly (or retry, or follow). */
async function settleFailure(
  job: InstallJob,
  err: unknown,
  streamFacts: InstallFacts,
  before: Set<number>,
  ticket: InstallTicket,
): Promise<Attempt> {
  const { ctx, client, redact, inputs } = job;
  const facts: Partial<InstallFacts> = {
    ...streamFacts,
    ...(err instanceof OperationFailedError && err.facts ? dropUndefined(err.facts) : {}),
  };
  const vmid = facts.vmid ?? inputs.vmid;
  const why = errorText(err, redact);
  const cause = safeCause(err, redact);

  // A 5xx before any stream may come from a proxy that gave up while the server
  // carries on: with a pinned VMID there is something to follow.
  if (err instanceof HttpStatusError && err.status >= 500 && inputs.vmid !== undefined) {
    return { kind: "done", result: await follow(job, facts, before, ticket, why, cause) };
  }

  // The request body did not bind, or some other answer before any stream.
  if (err instanceof HttpStatusError) {
    throw new LifecycleError(
      `the server rejected the install: ${redact(err.serverMessage)} (HTTP ${err.status}); nothing was created`,
      {
        cause,
      },
    );
  }

  // Connection failure: if the server answers a list now, the install may have started -> follow it.
  if (err instanceof ConnectionError) {
    try {
      await client.list({ signal: ctx.signal });
    } catch {
      throw new LifecycleError(`could not reach the server at ${job.conn.endpoint} to install: ${why}`, { cause });
    }
    return { kind: "done", result: await follow(job, facts, before, ticket, why, cause) };
  }

  if (!(err instanceof OperationFailedError)) {
    if (vmid === undefined) throw new LifecycleError(`the install failed: ${why}`, { cause });
    return { kind: "done", result: await follow(job, facts, before, ticket, why, cause) };
  }

  // The server's one recoverable error (no SSH key pair yet: it creates one and carries
  // on). When the stream ends right after it, the install is still running: follow it.
  if (err.shape === "error-event" && isRecoverableSshKeyError(err)) {
    return { kind: "done", result: await follow(job, facts, before, ticket, why, cause) };
  }

  switch (err.shape) {
    case "connection-lost":
    case "idle-timeout":
    case "overall-timeout":
      // The server carries on without a listener: ask it how this ends.
      return { kind: "done", result: await follow(job, facts, before, ticket, why, cause) };
    case "aborted":
      return cancelled(job, facts, before, why, cause);
    default:
      break;
  }

  // Concurrent first installs on a fresh server: all but one fail to create the SSH key pair.
  if (err.shape === "error-event" && err.step === SSH_KEY_CREATE_STEP && !facts.vmCreated) {
    return {
      kind: "retry",
      reason: `the server could not create its SSH key pair (${why.split("\n")[0]}); another install on a fresh server was creating it at the same moment`,
      advice: `The server at ${job.conn.endpoint} cannot create its SSH key pair: check its $HOME/.ssh`,
    };
  }

  // error-event, bare-message, no-completion: the install is over on the server. What exists?
  if (vmid === undefined) {
    throw new LifecycleError(`the install failed before a VMID was assigned; nothing was created: ${why}`, { cause });
  }
  let entry: VmEntry | undefined;
  try {
    entry = await findEntry(client, vmid, ctx.signal);
  } catch (listErr) {
    if (facts.vmCreated) {
      // Unsure, and it was created: keep it in state (a refresh drops it if it is gone).
      return failWithVm(
        job,
        { facts },
        [
          `the install of VM ${vmid} failed after the VM was created: ${why}`,
          `the server could not be asked whether it still exists (${errorText(listErr, redact)})`,
        ],
        cause,
      );
    }
    throw new LifecycleError(`the install failed before the VM was created: ${why}`, { cause });
  }

  if (entry === undefined) {
    const note = facts.vmCreated ? " (the server removed the half-made VM)" : "";
    throw new LifecycleError(`the install of VM ${vmid} failed; nothing is left on the server${note}: ${why}`, {
      cause,
    });
  }
  if (err.step === CREATING_VM_STEP && !facts.vmCreated) {
    // Our `qm create` failed while a VM with this VMID exists: another client took it.
    const reason = `VMID ${vmid} was taken by another VM ("${entry.name}") while this install was preparing (the auto-assigned VMID race)`;
    if (inputs.vmid === undefined) {
      return {
        kind: "retry",
        reason: `${reason}; the server picks the next free VMID`,
        advice: `Another client is installing VMs on ${job.conn.endpoint} at the same time: pin a vmid, or try again`,
      };
    }
    throw new LifecycleError(`${reason}; nothing of this install was created`, { cause });
  }
  if (before.has(vmid)) {
    throw new LifecycleError(`the install failed; VM ${vmid} on the server existed before it and is not ours: ${why}`, {
      cause,
    });
  }
  const status = await client.status(vmid, { signal: ctx.signal }).catch(() => undefined);
  return failWithVm(
    job,
    { facts, entry, status },
    [`the install of VM ${vmLabel(vmid, entry.name)} failed after the VM was created: ${why}`],
    cause,
  );
}

/** `SSH preparation > checking SSH key` reporting a missing key pair, which the server then creates. */
function isRecoverableSshKeyError(err: OperationFailedError): boolean {
  return err.step === SSH_KEY_STEP && /failed to find user SSH public key/.test(err.serverMessage ?? "");
}

/** Cancelled by the caller: the server carries on. Record a VM whose VMID is known; there is no time to follow. */
async function cancelled(
  job: InstallJob,
  facts: Partial<InstallFacts>,
  before: Set<number>,
  why: string,
  cause: unknown,
): Promise<never> {
  const vmid = facts.vmid ?? job.inputs.vmid;
  if (vmid === undefined || before.has(vmid)) {
    throw new LifecycleError(`the install was cancelled before a VMID was assigned: ${why}`, { cause });
  }
  const entry = await findEntry(job.client, vmid).catch(() => undefined);
  return failWithVm(
    job,
    { facts, entry },
    [`the install of VM ${vmid} was cancelled; the server may still be installing it: ${why}`],
    cause,
  );
}
