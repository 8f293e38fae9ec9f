// The install stream was lost (the connection dropped, went silent, or ran
// past its overall timeout), but the server carries on without a listener
// and there is no way to resume the stream. So the outcome is followed by
// asking the server (list + status) for a bounded time:
// - the VM appears and runs -> success (facts the stream never sent stay
//   unknown: the IP is the assigned-IP fact when it came, the user is the
//   requested one or the OS default);
// - it appears but never runs within the window -> PartialCreateError;
// - it appears and vanishes again -> the server cleaned up a failed install:
//   plain error;
// - it never appears -> plain error, no state.
//
// When the stream broke before the server named the VMID (auto install), the
// VM is recognised as the one new VM (not in the pre-install list, not
// another in-flight install of this process) whose name fits `<name>-<vmid>`
// (or `<vmid>`) and whose OS tag is ours or not set yet. More than one such
// VM is ambiguous: they are named in the error, none is adopted.
//
// Until the VM appears, an auto install keeps holding the VMID gate: the
// server may still be about to create it with the VMID it picked.
import type { InstallFacts } from "../client/stream/types";
import type { VmEntry } from "../client/schemas";
import { sleep, timingOf } from "./context";
import { failWithVm, finishCreate } from "./outcome";
import type { CreateResult, InstallJob } from "./outcome";
import { LifecycleError } from "./errors";
import { RUNNING, STOPPED, seconds, vmLabel } from "./power";
import { errorText } from "./redact";
import type { InstallTicket } from "./vmid-lock";
import { vmidsInFlight } from "./vmid-lock";

export async function follow(
  job: InstallJob,
  facts: Partial<InstallFacts>,
  before: Set<number>,
  ticket: InstallTicket,
  why: string,
  cause: unknown,
): Promise<CreateResult> {
  const { ctx, client, inputs, redact } = job;
  const timing = timingOf(ctx);
  const deadline = Date.now() + timing.followTimeoutMs;
  let vmid = facts.vmid ?? inputs.vmid;
  ctx.reporter.warn(
    `lost the install stream (${why.split("\n")[0]}); the server carries on without us: following VM ${vmid ?? "(VMID not known yet)"} ` +
      `by asking the server for up to ${seconds(timing.followTimeoutMs)}`,
  );

  let entry: VmEntry | undefined;
  let everSeen = false;
  let status: string | undefined;
  let ambiguous: VmEntry[] = [];
  let lastError: string | undefined;
  let cancelled = false;
  for (let round = 1; ; round++) {
    try {
      const list = await client.list({ signal: ctx.signal });
      if (vmid === undefined) {
        const mine = candidates(job, list.vms, before);
        if (mine.length === 1) {
          vmid = mine[0]!.vmid;
          ticket.vmidKnown(vmid);
          ctx.reporter.info(`following: the new VM ${vmLabel(vmid, mine[0]!.name)} is the one this install made`);
        } else ambiguous = mine;
      }
      entry = vmid === undefined ? undefined : list.vms.find((vm) => vm.vmid === vmid);
      if (entry) {
        if (!everSeen) {
          everSeen = true;
          ticket.created(); // it exists: the next auto install may start
          ctx.reporter.info(`following: VM ${vmLabel(entry.vmid, entry.name)} exists on the server`);
        }
        status = await client
          .status(entry.vmid, { signal: ctx.signal })
          .catch(() => (entry!.running ? RUNNING : STOPPED));
        if (status === RUNNING) break;
      } else if (everSeen) {
        throw new LifecycleError(
          `the install of VM ${vmid} failed after the stream was lost: the server created the VM and removed it again ` +
            `(it cleans up after a failed initialisation); nothing is left. Stream: ${why}`,
          { cause },
        );
      }
      lastError = undefined;
    } catch (err) {
      if (err instanceof LifecycleError && !ctx.signal?.aborted) throw err;
      if (ctx.signal?.aborted) {
        cancelled = true;
        break;
      }
      lastError = errorText(err, redact);
    }
    if (Date.now() >= deadline) break;
    ctx.reporter.debug(
      `following: round ${round}: ${entry ? `VM ${entry.vmid} is ${status ?? "not readable"}` : "the VM is not listed yet"}` +
        (lastError ? ` (last error: ${lastError})` : ""),
    );
    try {
      await sleep(Math.min(timing.pollIntervalMs, Math.max(0, deadline - Date.now())), ctx.signal);
    } catch {
      cancelled = true;
      break;
    }
  }

  const seenFacts: Partial<InstallFacts> = { ...facts, vmid };
  if (entry && status === RUNNING) {
    ctx.reporter.warn(
      `VM ${vmLabel(entry.vmid, entry.name)} exists and runs; the install's completion could not be observed (the stream was lost), so it is taken as done`,
    );
    return finishCreate(job, { facts: seenFacts, entry, status }, true);
  }
  if (entry) {
    return failWithVm(
      job,
      { facts: seenFacts, entry, status },
      [
        `lost the install stream of VM ${vmLabel(entry.vmid, entry.name)} (${why.split("\n")[0]}); ` +
          `the VM exists but was still ${status ?? "not readable"} ${cancelled ? "when cancelled" : `after following it for ${seconds(timing.followTimeoutMs)}`}`,
      ],
      cause,
    );
  }
  if (cancelled && vmid !== undefined) {
    // No time left to watch: keep the known VMID in state (a refresh drops it if it never appears).
    return failWithVm(
      job,
      { facts: seenFacts },
      [`the install of VM ${vmid} was cancelled while following it: ${why}`],
      cause,
    );
  }
  if (vmid === undefined && ambiguous.length > 1) {
    throw new LifecycleError(
      `lost the install stream before the server named the VMID, and ${ambiguous.length} new VMs could be this install's ` +
        `(${ambiguous.map((vm) => vmLabel(vm.vmid, vm.name)).join(", ")}); none was adopted: check them on the server. Stream: ${why}`,
      { cause },
    );
  }
  throw new LifecycleError(
    `lost the install stream, and VM ${vmid ?? "(VMID never named)"} did not appear on the server within ` +
      `${seconds(timing.followTimeoutMs)}; nothing was recorded. If the server still creates it later, bring it under ` +
      `Pulumi with \`pulumi import\` or remove it on the server. Stream: ${why}` +
      (lastError ? ` (last error asking the server: ${lastError})` : ""),
    { cause },
  );
}

/** New VMs that could be this install's (see the header). */
function candidates(job: InstallJob, vms: VmEntry[], before: Set<number>): VmEntry[] {
  const others = vmidsInFlight(job.key);
  return vms.filter((vm) => {
    if (before.has(vm.vmid) || others.has(vm.vmid)) return false;
    const nameFits = job.inputs.name ? vm.name === `${job.inputs.name}-${vm.vmid}` : vm.name === String(vm.vmid);
    const osFits = vm.os === "" || vm.os === job.inputs.os;
    return nameFits && osFits;
  });
}
