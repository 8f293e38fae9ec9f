// The install reported completion: confirm it with the server (the VM is
// listed and runs, within confirmTimeoutMs: the list may lag), then record it.
import type { InstallFacts } from "../../client";
import { timingOf, duration, vmLabel, poll, errorText } from "../core";
import { CODES, LifecycleError } from "../model";
import { observe, powerWord } from "../observe";
import { failWithVm, finishCreate } from "./record";
import type { CreateResult, InstallJob } from "./job";

export async function confirm(job: InstallJob, facts: InstallFacts & { vmid: number }): Promise<CreateResult> {
  const { ctx, client } = job;
  const label = vmLabel(facts.vmid, facts.realName);
  const timeoutMs = timingOf(ctx).confirmTimeoutMs;
  const r = await poll(ctx, {
    probe: (signal) => observe(client, facts.vmid, {}, signal),
    done: (o) => o.listed && o.running === true,
    timeoutMs,
  });
  const observation = r.reached ? r.value : r.last;
  if (observation === undefined) {
    // The install completed, so the VM exists; the server just cannot say more now.
    const why = r.reached ? "" : errorText(r.lastError, job.redact);
    return failWithVm(
      job,
      { facts },
      [`the install of VM ${label} completed, but the server's list could not be read to confirm it: ${why}`],
      r.reached ? undefined : r.lastError,
    );
  }
  if (!observation.listed) {
    throw new LifecycleError(
      `the install of VM ${label} reported success, but the server does not list VMID ${facts.vmid} ` +
        `(checked for ${duration(timeoutMs)}); nothing was recorded`,
      { code: CODES.installFailed },
    );
  }
  const basis = { facts, observation };
  if (!r.reached) {
    return failWithVm(job, basis, [
      `the install of VM ${label} completed, but its status is ${powerWord(observation) ?? "unreadable"}, not running`,
    ]);
  }
  return finishCreate(job, basis, true);
}
