// Update in place: observe the VM as it is now, settle an install that is
// still unconfirmed, plan from what the VM really is, then run the steps.
//
// Decisions:
// - The plan is made from the VM observed live, not from the stored state: a
//   VM stopped or changed outside Pulumi is planned correctly.
// - A VM that is gone, or whose VMID now names another VM, fails the update
//   with advice (refresh, then up) instead of creating anything here.
// - An install whose outcome is still unconfirmed is settled first: nothing
//   may be shut down or started while the server may still be installing it.
// - A changed connection is recorded; it is resolved field by field over the
//   stored one (not over the defaults: the VM lives where it was created).
// - Steps that take the running VM down wait for a place in its downtime
//   budgets, and a failure there stops the rest of its rollout (inRollout).
import {
  endpointKey,
  resolveConnection,
  LifecycleError,
  desiredOf,
  dropUndefined,
  parseState,
  targetUser,
} from "../model";
import type { LifecycleContext } from "../core";
import { disabledMessage } from "../delete";
import type { VmInputs, VmState } from "../model";
import { clockOf, vmLabel, sessionOf } from "../core";
import { lookOf, observeFor, observedFields } from "../observe";
import type { Observation } from "../observe";
import { planUpdate } from "../plan";
import { followUnconfirmed } from "./settle-follow";
import { planUnconfirmed, settleTime, settleUnconfirmed, withTimeline } from "../install";
import { inRollout } from "./rollout";
import { runSteps } from "./update-steps";
import type { UpdateJob } from "./update-steps";

export async function update(id: string, olds: VmState, news: VmInputs, ctx: LifecycleContext): Promise<VmState> {
  const job = prepare(id, olds, news, ctx);
  const current = await observeCurrent(job);
  const steps = planUpdate(current, news);
  if (steps.length > 0 && current.disabled) throw new LifecycleError(disabledMessage(job.label));
  if (steps.length > 0 && current.installState === "unconfirmed") {
    throw new LifecycleError(
      `VM ${job.label}: its install is still not settled, and ${settleTime(current.installLost!)}; nothing was changed: ` +
        "the server may still be installing it, and an update could act on it mid-install. " +
        "The first `pulumi up` from then makes the change (or set goPveQemu:waitForInstalls true to follow the install to its end now)",
    );
  }
  if (current.installComplete === false && current.installState !== "unconfirmed") {
    ctx.reporter.warn(
      `VM ${job.label} comes from an install that did not finish (${current.installProblem ?? "reason unknown"}); this update reconciles ` +
        "its settings and power state but cannot finish the installation: `pulumi up --replace` reinstalls it",
    );
  }
  if (steps.length === 0)
    ctx.reporter.debug(`VM ${job.label}: nothing to change on the server; recording the new inputs`);
  const state = await inRollout(job, steps, () => runSteps(job, steps, targetBase(job, current)));
  if (steps.length > 0) ctx.reporter.info(`VM ${job.label} is updated`);
  return dropUndefined(state);
}

function prepare(id: string, olds: VmState, news: VmInputs, ctx: LifecycleContext): UpdateJob {
  const old = parseState(olds, id);
  const conn = resolveConnection(news.connection, old.connection ?? ctx.connectionDefaults);
  const session = sessionOf(ctx, old, conn, [news.password, old.password, old.connection]);
  return { id, vmid: old.vmid, old, news, ...session, ctx };
}

/** The VM as it is now, over the stored state; gone or reused VMIDs are errors with advice. */
async function observeCurrent(job: UpdateJob): Promise<VmState> {
  const { old, conn, vmid } = job;
  const what = { endpoint: conn.endpoint, doing: `to update VM ${job.label}`, redact: job.redact };
  const seen = await observeFor(job.client, vmid, { vmName: old.vmName }, what, job.ctx.signal);
  if (seen.listed && !seen.nameMatches) {
    throw new LifecycleError(
      `VMID ${vmid} on ${conn.endpoint} now belongs to a VM named ${JSON.stringify(seen.entry?.name)}, not ${JSON.stringify(old.vmName)}; ` +
        "this resource's VM is gone: run `pulumi refresh`, then `pulumi up`",
    );
  }
  // An unconfirmed install's VM that is not listed yet may still be on its way: the settle rules say.
  if (!seen.listed && (old.installState !== "unconfirmed" || old.installLost === undefined))
    throw new LifecycleError(goneMessage(job));
  const current = dropUndefined({ ...old, ...(seen.listed ? observedFields(seen, old) : {}) });
  job.label = vmLabel(vmid, current.vmName);
  const looked = settleUnconfirmed(current, seen, job.ctx, job.label);
  const settled =
    looked === undefined || !needsFollow(looked, seen, job)
      ? looked
      : await followUnconfirmed({ ...job, key: endpointKey(conn.endpoint) }, looked);
  if (settled === undefined) throw new LifecycleError(goneMessage(job, old.installState === "unconfirmed"));
  return dropUndefined(settled);
}

/**
 * Still unconfirmed after one look: followed to a verdict before any step can
 * act on it, while the server shows it moving (planUnconfirmed); one that is
 * there and runs and was seen before is held as it is: no wait could settle it.
 */
function needsFollow(state: VmState, seen: Observation, job: UpdateJob): boolean {
  if (state.installState !== "unconfirmed" || state.installLost === undefined) return false;
  // "Seen before" means by an earlier run: this run's own look has just marked it seen.
  const before = { ...state, installLost: { ...state.installLost, seen: job.old.installLost?.seen === true } };
  const plan = planUnconfirmed(withTimeline(before, job.ctx), lookOf(seen), clockOf(job.ctx).now());
  if (plan.kind !== "hold") return true;
  job.ctx.reporter.info(
    `VM ${job.label}: its install is unconfirmed (${plan.why}); not followed: no wait can settle it`,
  );
  return false;
}

function goneMessage(job: UpdateJob, unconfirmed = false): string {
  if (unconfirmed) {
    return (
      `VM ${job.label} no longer exists on ${job.conn.endpoint}, and its install can no longer make it (the server never ` +
      "made it in time, or removed it after a failed install); run `pulumi refresh` to drop it from state, then `pulumi up` installs it again"
    );
  }
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
