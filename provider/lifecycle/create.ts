// Create: one install, followed to the end and confirmed with the server.
//
// The rule that shapes everything here: no VM is ever left outside state, and
// success is recorded only for an install that completed (or that the server
// can no longer undo). Each create is observe -> decide -> record:
// - before installing, the server's list: a pinned VMID held by another VM is
//   refused; a VM carrying this resource's derived name (identity.ts) is its
//   interrupted create and is adopted, never duplicated;
// - the install stream, with its facts and the phase it reached;
// - on failure, the decision table (decide.ts via failure.ts): a plain error,
//   a partial create, one retry, or following a lost stream (follow.ts);
// - on success, the server confirms it (confirm.ts: listed and running).
//
// Retries (only when nothing of the install was made): an auto-VMID install
// that loses the VMID race to ANOTHER client (fails at `VM creation > creating
// VM` while a VM with its VMID exists), and concurrent first installs on a
// fresh server racing to create its SSH key pair. Races within this process
// cannot happen (vmid-lock.ts).
import type { VmEntry } from "../client/schemas";
import type { InstallFacts, InstallSuccess, OperationEvent } from "../client/stream/types";
import { STEP, phaseIndex, phaseOfEvent } from "../client/stream/wire";
import { connectionSecrets, endpointKey, resolveConnection } from "./connection";
import type { LifecycleContext } from "./context";
import { adopt } from "./adopt";
import { confirm } from "./confirm";
import { CODES, LifecycleError } from "./errors";
import { settleFailure } from "./failure";
import type { Attempt, Progress } from "./failure";
import { beforeInstall, isDerivedName } from "./identity";
import { adoptInterrupted } from "./interrupted";
import { LIMITS, SERVER_DEFAULTS } from "./inputs";
import type { VmInputs } from "./inputs";
import type { CreateResult, InstallJob } from "./outcome";
import { generatePassword } from "./password";
import { installProgress } from "./progress";
import { errorText, redactor, safeCause } from "./redact";
import { dropUndefined } from "./state";
import { acquireInstallSlot } from "./vmid-lock";
import type { InstallTicket } from "./vmid-lock";
import type { InstallRequest } from "../client/schemas";

export type { CreateResult } from "./outcome";

export async function create(inputs: VmInputs, ctx: LifecycleContext): Promise<CreateResult> {
  if (inputs.adopt === true) return adopt(inputs, ctx);
  const job = jobOf(inputs, ctx);
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptInstall(job, attempt);
    if (outcome.kind === "done") return outcome.result;
    if (attempt >= 2) {
      throw new LifecycleError(`${outcome.reason}; it happened again on the retry. ${outcome.advice}`, {
        code: CODES.installFailed,
      });
    }
    ctx.reporter.warn(`${outcome.reason}; retrying the install once`);
  }
}

function jobOf(inputs: VmInputs, ctx: LifecycleContext): InstallJob {
  const conn = resolveConnection(inputs.connection, ctx.connectionDefaults);
  const password = inputs.password ?? generatePassword();
  return {
    inputs,
    conn,
    client: ctx.client(conn),
    password,
    passwordGenerated: inputs.password === undefined,
    redact: redactor([password, ...connectionSecrets(conn)]),
    ctx,
    request: installRequest(inputs, password),
    key: endpointKey(conn.endpoint),
    derived: isDerivedName(inputs.name, ctx.urn, LIMITS.nameMax),
  };
}

/**
 * The server's install body. cpu, ram and disk are always sent, with the
 * documented defaults (2, 2048 MB, 16 GiB) for omitted inputs: the server's
 * code validates them BEFORE applying its defaults, so an omitted cpu would
 * become 1 and an omitted ram 512, unlike its docs. Sending them gives the same
 * VM on either behaviour, and "omitted" keeps meaning the documented default.
 */
function installRequest(inputs: VmInputs, password: string): InstallRequest {
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

async function attemptInstall(job: InstallJob, attempt: number): Promise<Attempt> {
  const { ctx, inputs } = job;
  const ticket = await acquireInstallSlot(job.key, inputs.vmid, ctx.signal);
  try {
    const vms = await listBefore(job);
    const want = {
      vmid: inputs.vmid,
      name: inputs.name,
      derived: job.derived,
      os: inputs.os,
      endpoint: job.conn.endpoint,
    };
    const found = beforeInstall(vms, want);
    if (found.kind === "refuse") throw new LifecycleError(found.why, { code: CODES.vmidTaken });
    const before = new Set(vms.map((vm) => vm.vmid));
    if (found.kind === "interrupted") {
      ticket.created(); // nothing is installed: the next auto install may start
      return { kind: "done", result: await adoptInterrupted(job, found.entry, before, ticket) };
    }
    ctx.reporter.info(
      `installing ${inputs.os} ${inputs.version} on ${job.conn.endpoint}` +
        (inputs.vmid !== undefined ? ` as VMID ${inputs.vmid}` : " (the server picks the VMID)") +
        // in the same line: one engine message fewer per VM
        (job.passwordGenerated
          ? "; no password given: a random one was generated (see the secret output `password`)"
          : ""),
    );
    const run = await runInstall(job, ticket);
    if (!run.ok) return await settleFailure(job, run.err, run.progress, before, ticket, attempt);
    ticket.created();
    for (const w of run.success.warnings) {
      ctx.reporter.debug(`install recovered: ${w.step}: ${job.redact(w.message)}`);
    }
    return { kind: "done", result: await confirm(job, run.success.facts) };
  } finally {
    ticket.finish();
  }
}

/** The VMs that exist before the install. */
async function listBefore(job: InstallJob): Promise<VmEntry[]> {
  try {
    // Installs to one server wait for each other here (vmid-lock.ts): no waiting for other lists.
    return (await job.client.list({ signal: job.ctx.signal, immediate: true })).vms;
  } catch (err) {
    throw new LifecycleError(
      `could not list the VMs on ${job.conn.endpoint} before installing (nothing was created): ${errorText(err, job.redact)}`,
      { cause: safeCause(err, job.redact), code: CODES.unreachable },
    );
  }
}

type Run = { ok: true; success: InstallSuccess } | { ok: false; err: unknown; progress: Progress };

/** The install stream, keeping the facts and the furthest phase it showed. */
async function runInstall(job: InstallJob, ticket: InstallTicket): Promise<Run> {
  const withNode = job.inputs.node !== undefined;
  const progress: Progress = { facts: { vmCreated: false, completed: false }, step: "", phase: "checkVmid" };
  const report = installProgress(job.ctx.reporter, job.redact, withNode);
  const onEvent = (event: OperationEvent): void => {
    report(event);
    if (event.kind !== "step" && !(event.kind === "raw" && event.recovered?.kind === "step")) return;
    const ev = event.kind === "step" ? event : (event.recovered as Extract<OperationEvent, { kind: "step" }>);
    if (ev.step !== "") progress.step = ev.step;
    const phase = phaseOfEvent(ev.step, ev.status, ev.message, withNode);
    if (phase && phaseIndex(phase) > phaseIndex(progress.phase)) progress.phase = phase;
    // The VMID is taken once this step succeeds: the next auto install may start.
    if (ev.step === STEP.creatingVm && ev.status === "success") ticket.created();
  };
  const onFacts = (f: InstallFacts): void => {
    progress.facts = f;
    if (f.vmid !== undefined) ticket.vmidKnown(f.vmid);
    if (f.vmCreated) ticket.created();
  };
  try {
    return { ok: true, success: await job.client.install(job.request, { signal: job.ctx.signal, onEvent, onFacts }) };
  } catch (err) {
    return { ok: false, err, progress };
  }
}
