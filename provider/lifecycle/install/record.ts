// What a create ends in, once the server has been asked: a VM recorded with
// a state true to it (success), a partial create, or a destroyed VM with a
// plain error (destroyOnCreateFailure). Shared by create (the confirmed
// path and stream failures) and follow (the followed path).
import type { VmEntry, InstallFacts } from "../../client";
import type { LostInstall, VmInputs, VmState } from "../model";
import { destroyVm } from "../delete";
import {
  CODES,
  LifecycleError,
  PartialCreateError,
  SERVER_DEFAULTS,
  defaultUser,
  desiredOf,
  dropUndefined,
  realName,
} from "../model";
import { vmLabel, errorText, safeCause } from "../core";
import { diskFromList, memoryFromList, RUNNING, isDisabled, powerWord } from "../observe";
import type { Observation } from "../observe";
import { shutdownAndWait } from "../power";
import { settleTime } from "./settle";
import type { CreateResult, InstallJob } from "./job";

/**
 * What a recorded state is made from: the stream's facts, and the
 * observation of the VM, if one was made. The decision tables take the Look
 * of the same observation (lookOf); the state needs the observation itself
 * (its list entry's sizes and node).
 */
export interface StateBasis {
  facts: Partial<InstallFacts>;
  observation?: Observation;
}

/** Its list entry, when the observation found it under its name. */
function entryOf(s: StateBasis): VmEntry | undefined {
  return s.observation?.listed && s.observation.nameMatches ? s.observation.entry : undefined;
}

/** Its power word ("running", "stopped", ...), when the observation found it under its name. */
function statusOf(s: StateBasis): string | undefined {
  return s.observation?.listed && s.observation.nameMatches ? powerWord(s.observation) : undefined;
}

const LIMIT_NAMES = { cpu: "VM_MAX_CPU", memoryMb: "VM_MAX_RAM", diskGb: "VM_MAX_DISK" } as const;

/**
 * The VM exists and runs: record it, say what the server clamped, and apply
 * `running: false`. Shared by the confirmed path and the followed path.
 */
export async function finishCreate(job: InstallJob, basis: StateBasis, completed: boolean): Promise<CreateResult> {
  const { ctx, inputs } = job;
  const state = stateFrom(job, basis, completed);
  for (const key of ["cpu", "memoryMb", "diskGb"] as const) {
    const c = state.clamped?.[key];
    if (c) {
      ctx.reporter.warn(
        `${key} ${c.requested} was clamped by the server to ${c.limit} (its ${LIMIT_NAMES[key]}); ` +
          `asking for ${c.limit} or more has the same effect, so it is not shown as a change later`,
      );
    }
  }
  const label = vmLabel(state.vmid, state.vmName);
  if (inputs.running === false && state.running) {
    ctx.reporter.info(`running is false: shutting down VM ${label}`);
    try {
      await shutdownAndWait(job.client, state.vmid, label, ctx, job.redact);
      state.running = false;
    } catch (err) {
      throw new PartialCreateError({
        id: String(state.vmid),
        state,
        reasons: [
          `VM ${label} was installed, but shutting it down (running: false) failed: ${errorText(err, job.redact)}`,
        ],
        cause: safeCause(err, job.redact),
      });
    }
  }
  ctx.reporter.info(
    `VM ${label} is ready${state.ip ? ` at ${state.ip}` : ""}${state.node ? ` on node ${state.node}` : ""}`,
  );
  return { id: String(state.vmid), state };
}

/**
 * The VM exists and its install's outcome cannot be known yet: recorded (the
 * create succeeds, its outputs usable) as unconfirmed, with why and from when
 * the server's answers can settle it, for the next refresh, preview or up.
 */
export function recordUnconfirmed(job: InstallJob, basis: StateBasis, lost: LostInstall, why: string): CreateResult {
  const state = stateFrom(job, basis, false, undefined, { ...lost, reason: why.split("\n")[0] });
  job.ctx.reporter.warn(
    `VM ${vmLabel(state.vmid, state.vmName)} is recorded as unconfirmed (${why}); ${settleTime(lost)}: ` +
      "until then an `up` plans no change for it while it runs, and the first `up` or `refresh` from then records it " +
      "from what the server shows (goPveQemu:waitForInstalls true waits for it instead)",
  );
  return { id: String(state.vmid), state };
}

/** A state true to what is known of the VM. */
function stateFrom(
  job: InstallJob,
  basis: StateBasis,
  completed: boolean,
  problem?: string,
  lost?: LostInstall,
): VmState {
  const { inputs, conn } = job;
  const facts = basis.facts;
  const vmid = facts.vmid ?? inputs.vmid;
  if (vmid === undefined) throw new Error("stateFrom needs a VMID");
  const entry = entryOf(basis);
  const { want, actual } = sizesOf(inputs, basis);
  const status = statusOf(basis);
  const running = status !== undefined ? status === RUNNING : entry?.running;
  return dropUndefined<VmState>({
    vmid,
    vmName: entry?.name ?? facts.realName ?? realName(job.name, vmid),
    ip: facts.ip,
    node: entry && !isDisabled(entry) ? entry.node : inputs.node,
    os: inputs.os,
    version: inputs.version,
    user: facts.user ?? inputs.user ?? defaultUser(inputs.os),
    ...actual,
    running,
    password: inputs.storePassword === false ? undefined : job.password,
    passwordGenerated: job.passwordGenerated ? true : undefined,
    passwordHash: inputs.passwordHash,
    connection: conn,
    inputs: desiredOf(inputs),
    clamped: clampsOf(want, actual, basis),
    disabled: entry && isDisabled(entry) ? true : undefined,
    installComplete: completed,
    installProblem: completed || problem === undefined ? undefined : problem.split("\n")[0],
    installState: lost ? "unconfirmed" : undefined,
    installLost: lost,
  });
}

type Sizes = Record<"cpu" | "memoryMb" | "diskGb", number>;

/**
 * What was asked (defaults applied) and what the VM has: the list for cpu
 * (exact), else the clamping facts, else what was asked.
 */
function sizesOf(inputs: VmInputs, basis: StateBasis): { want: Sizes; actual: Sizes } {
  const { facts } = basis;
  const entry = entryOf(basis);
  const want = {
    cpu: inputs.cpu ?? SERVER_DEFAULTS.cpu,
    memoryMb: inputs.memoryMb ?? SERVER_DEFAULTS.memoryMb,
    diskGb: inputs.diskGb ?? SERVER_DEFAULTS.diskGb,
  };
  const memoryKnown = facts.memoryMb ?? want.memoryMb;
  const diskKnown = facts.diskGb ?? want.diskGb;
  const actual = {
    cpu: entry?.cpu ?? facts.cpu ?? want.cpu,
    memoryMb: entry ? memoryFromList(entry.memory, memoryKnown) : memoryKnown,
    diskGb: entry ? diskFromList(entry.disk, diskKnown) : diskKnown,
  };
  return { want, actual };
}

/** The server's cuts: only one it announced, or one the list proves (less than asked). */
function clampsOf(want: Sizes, actual: Sizes, basis: StateBasis): VmState["clamped"] {
  const clamped: NonNullable<VmState["clamped"]> = {};
  for (const key of ["cpu", "memoryMb", "diskGb"] as const) {
    if (actual[key] < want[key] && (basis.facts[key] !== undefined || entryOf(basis) !== undefined)) {
      clamped[key] = { requested: want[key], limit: actual[key] };
    }
  }
  return Object.keys(clamped).length > 0 ? clamped : undefined;
}

/**
 * A VM of ours exists but the create did not succeed: PartialCreateError, or
 * with destroyOnCreateFailure destroy it and throw a plain error.
 */
export async function failWithVm(
  job: InstallJob,
  basis: StateBasis,
  reasons: string[],
  cause?: unknown,
  lost?: LostInstall,
): Promise<never> {
  const { ctx, redact } = job;
  const state = stateFrom(job, basis, false, reasons.join("; "), lost);
  const label = vmLabel(state.vmid, state.vmName);
  const safe = reasons.map(redact);
  if (lost) {
    // Not a failure (yet): destroyOnCreateFailure does not apply to an install that may succeed.
    safe.push(
      `VM ${label} is kept in state as unconfirmed (installState "unconfirmed", stream lost at ${lost.step ? `step "${lost.step}"` : "the start"}): ` +
        "the next `pulumi up` or `pulumi refresh` settles it: recorded as installed once the server can no longer remove it, dropped from state if the server removed it",
    );
  } else if (job.inputs.destroyOnCreateFailure === true && entryOf(basis) !== undefined) {
    ctx.reporter.warn(`destroyOnCreateFailure: destroying VM ${label}`);
    let destroyError: unknown;
    try {
      await destroyVm(job.client, state.vmid, label, ctx, redact);
    } catch (err) {
      destroyError = err ?? new Error("unknown error");
    }
    if (destroyError === undefined) {
      throw new LifecycleError(`${safe.join("; ")}; VM ${label} was destroyed (destroyOnCreateFailure)`, {
        cause: safeCause(cause, redact),
        code: CODES.installFailed,
      });
    }
    safe.push(
      `destroying it (destroyOnCreateFailure) failed too: ${errorText(destroyError, redact)}; it is kept in state`,
    );
  } else {
    safe.push(
      `VM ${label} exists and is kept in state as an incomplete install: the next \`pulumi up\` replaces it ` +
        "(with `keepIncompleteInstall: true` it reconciles it instead), and `pulumi destroy` removes it",
    );
  }
  throw new PartialCreateError({ id: String(state.vmid), state, reasons: safe, cause: safeCause(cause, redact) });
}
