// An update's place in the rollout: the steps that take a running VM down and
// bring it back (a shutdown, the changes and a start; a reboot) run only
// while it holds a place in its downtime group's and server's budgets
// (DowntimeBudget), and a failure there stops the rest of the rollout. Also
// the last word of allowDowntime: false, for a VM that turned out running
// although its state said stopped (preview refused what it could see).
import { endpointKey, PartialUpdateError } from "../model";
import type { VmState } from "../model";
import { NO_DOWNTIME_RULES, errorText } from "../core";
import { describeStep, refuseDowntime } from "../plan";
import type { Step } from "../plan";
import type { UpdateJob } from "./update-steps";

/** Down as a side effect: shut down and started again, or rebooted (not running: false, which asks for it). */
function causesOf(steps: Step[]): string[] | undefined {
  const reboot = steps.some((s) => s.kind === "reboot");
  const restart = steps[0]?.kind === "shutdown" && steps.some((s) => s.kind === "start");
  if (!reboot && !restart) return undefined;
  return steps.filter((s) => s.kind !== "shutdown" && s.kind !== "start").map(describeStep);
}

/** Runs `steps` with `run`, holding a place in the rollout while the VM is down. */
export async function inRollout(job: UpdateJob, steps: Step[], run: () => Promise<VmState>): Promise<VmState> {
  const causes = causesOf(steps);
  if (causes !== undefined && job.news.allowDowntime === false) {
    throw refuseDowntime(job.label, causes);
  }
  // Only downtime that comes back takes a place: a stopped VM started again, or one stopped as asked, takes none.
  if (causes === undefined) return run();
  const { ctx, conn, label } = job;
  const key = endpointKey(conn.endpoint);
  const request = {
    id: `${key}/${job.vmid}`,
    vm: label,
    ...(job.news.downtimeGroup !== undefined ? { group: job.news.downtimeGroup } : {}),
    server: { key, endpoint: conn.endpoint },
  };
  const place = await ctx.process.downtime.enter(request, ctx.downtime ?? NO_DOWNTIME_RULES, ctx.signal, (why) =>
    ctx.reporter.info(`VM ${label} waits for its place in the rollout: ${why}`),
  );
  if (place === undefined) return run();
  try {
    const state = await run();
    place.leave();
    return state;
  } catch (err) {
    // A cancelled deployment is no failed VM: its place is given back, and the rollout is not stopped.
    if (ctx.signal?.aborted) {
      place.leave();
      throw err;
    }
    const why = err instanceof PartialUpdateError ? err.reasons[0]! : errorText(err, job.redact);
    const heldBack = place.stop(why);
    const said = [
      "no other VM of its rollout is shut down in this deployment",
      ...(heldBack.length > 0 ? [`held back: ${heldBack.join(", ")}`] : []),
    ].join("; ");
    ctx.reporter.warn(`VM ${label} failed: ${said}`);
    if (!(err instanceof PartialUpdateError)) throw err;
    throw new PartialUpdateError({
      id: err.id,
      state: err.state,
      reasons: [...err.reasons, said],
      applied: err.applied,
      notApplied: err.notApplied,
      cause: err.cause,
    });
  }
}
