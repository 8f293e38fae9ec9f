// The install stream was lost (cut, silent, too long, or an answer from
// something between us and the server), but the server carries on without a
// listener and a stream cannot be resumed. So the install is followed by
// asking the server: observe -> decide (decideLost, from the
// install's timeline: until when the server may still create the VM, start
// it, or remove it again) -> record. The follow ends as soon as the verdict
// is known, and at the latest when the remaining steps could no longer take
// longer (or at followTimeoutMs, if that is shorter): then an existing VM is
// recorded as unconfirmed for the next refresh or up to settled.
//
// When no answer named the VMID (auto install), the VM is recognised only by
// evidence that it is this install's (newVmOf): the one new VM (not in the
// pre-install list, not another in-flight install of this process) with this
// stack's mark for this resource, or, for a name the user gave, with that
// name on a server where none had it before and no other install of it ran
// here; a name's VM that cannot be told ends the follow with an error naming
// it. Until its VM appears, an auto install keeps holding the VMID gate: the
// server may still be about to create it with the VMID it picked.
import type { VmEntry, InstallFacts, Phase } from "../../client";
import { clockOf, openBoundsOf, timingOf, duration, vmLabel, poll } from "../core";
import { sincePhase, sinceStart, timelineOf } from "./timeline";
import type { FollowMemory, LostVerdict } from "./rules";
import { InstallWatch, type FollowedVm } from "./install-watch";
import type { LostInstall } from "../model";
import { CODES, LifecycleError, realName } from "../model";
import { exists, lookAt, unreadable } from "../observe";
import type { ObservedLook } from "../observe";
import { failWithVm, finishCreate, recordUnconfirmed } from "./record";
import type { CreateResult, InstallJob } from "./job";
import type { StateBasis } from "./record";
import type { Observation } from "../observe";
import type { InstallTicket } from "../core";
import { newVmOf } from "./new-vm";
import { sendsNode } from "./run";

/** Where the stream left the install. */
export interface LostAt {
  facts: Partial<InstallFacts>;
  /** the last step the stream showed ("" before the first) */
  step: string;
  /** the phase the server had reached at least */
  phase: Phase;
  before: Set<number>;
  ticket: InstallTicket;
  /** what happened to the stream, for messages */
  why: string;
  /** what the follow says it follows, when it is not a lost stream (an interrupted create) */
  headline?: string;
  /** when the install began, when known from evidence (an interrupted create's name or journal entry) */
  began?: number;
  /** the furthest phase its stream had shown, and when (this machine's journal, for an interrupted create) */
  reached?: { phase: Phase; at: number };
  /** what the VM's power showed while the stream was still read */
  watched?: FollowMemory;
  cause: unknown;
}

export async function follow(job: InstallJob, at: LostAt): Promise<CreateResult> {
  const { ctx } = job;
  const clock = clockOf(ctx);
  const open = openBoundsOf(ctx);
  const withNode = sendsNode(job);
  const fromNow = timelineOf({ step: at.step, phase: at.phase, lostAt: clock.now() }, open, withNode);
  const started = at.began === undefined ? fromNow : sinceStart(fromNow, at.began, open, withNode);
  const t = at.reached === undefined ? started : sincePhase(started, at.reached, open, withNode);
  const { followTimeoutMs, settleWaitMs } = timingOf(ctx);
  const capAt = t.lostAt + followTimeoutMs;
  // Once its VM is seen (state can hold it), the follow waits no longer than settleWaitMs for a verdict.
  const shortAt = t.lostAt + settleWaitMs;
  const watch = new Watch(job, at, t);
  const bound = duration(Math.min(capAt, t.settleBy) - t.lostAt);
  ctx.reporter.warn(
    `${at.headline ?? `lost the install stream at ${t.step ? `step "${t.step}"` : "the start"}`} (${at.why.split("\n")[0]}); the server carries on without us: ` +
      `following VM ${watch.vmid() ?? "(VMID not known yet)"} by asking the server, ` +
      (shortAt < Math.min(capAt, t.settleBy)
        ? `for up to ${duration(settleWaitMs)} once it exists, then it is recorded as unconfirmed (the remaining steps can take up to ${bound})`
        : `for up to ${bound} (the longest the remaining steps can take)`),
  );
  let verdict: LostVerdict;
  try {
    const result = await poll(ctx, {
      probe: () => watch.round(watch.mem.seen && watch.vmid() !== undefined ? Math.min(capAt, shortAt) : capAt),
      done: (v) => v.kind !== "follow",
      fatal: (err) => err instanceof LifecycleError,
      timeoutMs: Math.min(capAt, t.settleBy) - t.lostAt + timingOf(ctx).pollIntervalMs,
      intervalMs: () => watch.rounds.intervalMs(),
      onRound: (r) => {
        if (!watch.rounds.quick) ctx.reporter.debug(`following: round ${r.round}: ${r.value?.why ?? "no answer"}`);
      },
    });
    verdict = result.reached ? result.value : await watch.round(Number.NEGATIVE_INFINITY);
  } catch (err) {
    if (!ctx.signal?.aborted) throw err;
    verdict = watch.cancelled();
  }
  return record(job, at, watch, verdict, { ...watch.t, seen: watch.mem.seen });
}

/** What the follow has seen so far; its rounds of observe -> decide are an InstallWatch's. */
class Watch implements FollowedVm {
  private readonly id: number | undefined;
  private found: number | undefined;
  observation: Observation | undefined; // the last one, when one could be made
  readonly rounds: InstallWatch;

  constructor(
    private readonly job: InstallJob,
    private readonly at: LostAt,
    t: LostInstall,
  ) {
    this.id = at.facts.vmid ?? job.inputs.vmid;
    // Only a stream of this run that the connection's end cut can date a restart of the server.
    const cut = at.headline === undefined && (at.cause as { shape?: string } | undefined)?.shape === "connection-lost";
    const target = { ...job, withNode: sendsNode(job), restartEvidence: cut };
    this.rounds = new InstallWatch(target, t, false, at.watched);
  }

  get mem(): FollowMemory {
    return this.rounds.mem;
  }

  get t(): LostInstall {
    return this.rounds.t;
  }

  vmid(): number | undefined {
    return this.id ?? this.found;
  }

  round(capAt: number): Promise<LostVerdict> {
    return this.rounds.round(this, capAt);
  }

  async look(): Promise<ObservedLook> {
    const { client, ctx, redact } = this.job;
    try {
      if (this.vmid() === undefined && !(await this.findVmid())) return { look: { kind: "absent" } };
    } catch (err) {
      // A verdict on the name's VMs (newVmOf) ends the follow; anything else is one unanswered round.
      if (ctx.signal?.aborted || err instanceof LifecycleError) throw err;
      return { look: unreadable(err, redact) };
    }
    const vmid = this.vmid()!;
    // Live power state each round: the reboot's stopped moment is short, and the list lags it.
    const expect = { vmName: realName(this.job.name, vmid), live: true };
    const looked = await lookAt(client, vmid, expect, { redact, signal: ctx.signal, passCancel: true });
    if (looked.observation !== undefined) this.observation = looked.observation;
    if (exists(looked.look) && !this.mem.seen) this.firstSeen(vmid);
    return looked;
  }

  /** An auto install whose VMID the stream never named: the one new VM that can only be this install's. */
  private async findVmid(): Promise<boolean> {
    const vm = await newVmOf(this.job, this.at.before, this.at.why);
    if (vm === undefined) return false;
    this.found = vm.vmid;
    this.at.ticket.vmidKnown(this.found);
    return true;
  }

  private firstSeen(vmid: number): void {
    this.at.ticket.created(); // it exists: the next auto install may start
    const name = this.entry()?.name;
    this.job.ctx.reporter.info(`following: VM ${vmLabel(vmid, name)} exists on the server`);
  }

  cancelled(): LostVerdict {
    if (this.vmid() === undefined) return { kind: "failed", why: "the follow was cancelled before the VMID was known" };
    return {
      kind: "partial",
      installState: "unconfirmed",
      why: "the follow was cancelled; the server may still be installing it",
    };
  }

  basis(): StateBasis {
    return { facts: { ...this.at.facts, vmid: this.vmid() }, observation: this.observation };
  }

  /** Its list entry, when the last observation found it under its name. */
  entry(): VmEntry | undefined {
    return this.observation?.nameMatches ? this.observation.entry : undefined;
  }
}

async function record(
  job: InstallJob,
  at: LostAt,
  watch: Watch,
  v: LostVerdict,
  t: LostInstall,
): Promise<CreateResult> {
  const stream = at.why.split("\n")[0];
  const vmid = watch.vmid();
  const label = vmid === undefined ? "(VMID never named)" : vmLabel(vmid, watch.entry()?.name);
  switch (v.kind) {
    case "done":
      if (v.inferred) {
        job.ctx.reporter.warn(
          `VM ${label}: ${v.why}; its completion was not seen (the stream was lost), so it is recorded as installed`,
        );
      }
      return finishCreate(job, watch.basis(), true);
    case "partial":
      if (v.installState === "unconfirmed" && !job.ctx.signal?.aborted) {
        return recordUnconfirmed(job, watch.basis(), t, `${stream}: ${v.why}`);
      }
      return failWithVm(
        job,
        watch.basis(),
        [
          `lost the install stream of VM ${label} at ${t.step ? `step "${t.step}"` : "the start"} (${stream}): ${v.why}`,
        ],
        at.cause,
        v.installState === "unconfirmed" ? t : undefined,
      );
    case "unknown":
      throw new LifecycleError(
        `lost the install stream (${stream}), and ${v.why}; nothing was recorded. ${nextStep(job)}`,
        { cause: at.cause, code: CODES.installUnknown },
      );
    default:
      throw new LifecycleError(
        `the install of VM ${label} failed after the stream was lost (${stream}): ${v.why}; nothing was recorded` +
          // Never seen: should a step have outlasted its bound, the VM could still appear.
          (watch.mem.seen ? "" : `. ${nextStep(job)}`),
        {
          cause: at.cause,
          code: CODES.installFailed,
        },
      );
  }
}

/** What to run next when a VM may still appear that state does not know. */
function nextStep(job: InstallJob): string {
  if (job.marked) {
    return `If the server still creates it, the next \`pulumi up\` finds it by this stack's mark in its name ("${job.name}-<vmid>") and takes it over.`;
  }
  const named = job.name === undefined ? "it" : `a VM named ${job.name}-<vmid>`;
  return `If the server still creates ${named}, declare it with its \`vmid\` and \`adopt: true\`, or remove it on the server.`;
}
