// An update of a VM whose install is still unconfirmed (its stream was lost
// and the server may still be installing it) must not change anything yet: a
// shutdown for a new cpu, or a start for `running: true`, would act on a VM
// in the middle of its install. So the update first follows the install to a
// verdict, by the same rules as create's follow (the reboot rule, the
// timeline), and plans only then. As create's follow does, it waits for a VM
// that has not appeared yet for as long as the server may still create it,
// and once the VM is there, no longer than settleWaitMs. Still unsettled
// then, the state stays unconfirmed: an update with steps fails having
// changed nothing (update), one without is recorded as it is, and a later
// look settles it. What the VM shows may settle it sooner (the steps left
// from the phase it shows bound the install too), but the stored settle
// time, which every message names, is never moved by it.
import type { GoPveQemuApi } from "../../client";
import { clockOf, timingOf, duration, poll, errorText } from "../core";
import type { LifecycleContext, Redactor } from "../core";
import { InstallWatch, settleTime, withTimeline } from "../install";
import type { FollowedVm, LostVerdict } from "../install";
import type { LostInstall, VmState } from "../model";
import { lookOf, observe, observedFields } from "../observe";
import type { Observation, ObservedLook } from "../observe";

export interface SettleTarget {
  client: GoPveQemuApi;
  vmid: number;
  label: string;
  ctx: LifecycleContext;
  redact: Redactor;
  /** the server's key: reads of live power to one server share one pace */
  key?: string;
}

/** The state once the install is settled (still unconfirmed when it is not yet); undefined when the server removed the VM. */
export async function followUnconfirmed(t: SettleTarget, state: VmState): Promise<VmState | undefined> {
  if (state.installState !== "unconfirmed" || state.installLost === undefined) return state;
  const current = withTimeline(state, t.ctx);
  const lost = current.installLost;
  const clock = clockOf(t.ctx);
  const { followTimeoutMs, settleWaitMs, pollIntervalMs } = timingOf(t.ctx);
  const began = clock.now();
  // Until the VM is seen: as long as the server may still create it; from then on, settleWaitMs.
  const longCap = Math.min(lost.settleBy, began + followTimeoutMs);
  const watch = new Watch(t, current, lost);
  const capAt = (): number =>
    watch.firstSeenAt === undefined ? longCap : Math.min(longCap, watch.firstSeenAt + settleWaitMs);
  t.ctx.reporter.info(
    `VM ${t.label}: its install is not settled yet (its stream was lost at ${lost.step ? `step "${lost.step}"` : "the start"}); ` +
      `following it before anything is changed, for up to ${duration(Math.max(0, Math.min(longCap, began + settleWaitMs) - began))} ` +
      "once the VM is there",
  );
  const result = await poll(t.ctx, {
    probe: () => watch.rounds.round(watch, capAt()),
    done: (v) => v.kind !== "follow" || clock.now() >= capAt(),
    timeoutMs: Math.max(0, longCap - began) + pollIntervalMs,
    intervalMs: () => watch.rounds.intervalMs(),
    onRound: (r) => {
      if (!watch.rounds.quick)
        t.ctx.reporter.debug(`VM ${t.label}: following its install: ${r.value?.why ?? "no answer"}`);
    },
  });
  const final = result.reached && result.value.kind !== "follow";
  const verdict = final ? result.value : await watch.rounds.round(watch, Number.NEGATIVE_INFINITY);
  return watch.settled(verdict);
}

/** The VM whose install is followed; the rounds of observe -> decide are an InstallWatch's. */
class Watch implements FollowedVm {
  private last: Observation | undefined;
  readonly rounds: InstallWatch;
  /** when a look first found the VM under its name in this follow */
  firstSeenAt: number | undefined;

  constructor(
    private readonly t: SettleTarget,
    private readonly state: VmState,
    lost: LostInstall,
  ) {
    const withNode = state.inputs?.node !== undefined;
    const target = { client: t.client, ctx: t.ctx, withNode, key: t.key };
    this.rounds = new InstallWatch(target, lost, lost.seen);
  }

  vmid(): number {
    return this.t.vmid;
  }

  async look(): Promise<ObservedLook> {
    const { client, vmid, ctx, redact } = this.t;
    try {
      this.last = await observe(client, vmid, { vmName: this.state.vmName, live: true }, ctx.signal);
      if (this.firstSeenAt === undefined && this.last.listed && this.last.nameMatches)
        this.firstSeenAt = clockOf(ctx).now();
      return { look: lookOf(this.last), observation: this.last };
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      return { look: { kind: "unreadable", error: errorText(err, redact) } };
    }
  }

  /** The verdict as the state to plan from. */
  settled(v: LostVerdict): VmState | undefined {
    const { installState: _s, installLost: _l, ...rest } = this.state;
    const seen = this.last?.listed && this.last.nameMatches ? observedFields(this.last, this.state) : {};
    const { reporter } = this.t.ctx;
    switch (v.kind) {
      case "done":
        reporter.info(`VM ${this.t.label}: its install is settled as complete (${v.why ?? "it finished"})`);
        return { ...rest, ...seen, installComplete: true, installProblem: undefined };
      case "failed":
        reporter.info(`VM ${this.t.label}: its install is settled as failed and the VM is gone (${v.why})`);
        return undefined;
      case "partial":
        if (v.installState === "failed") {
          reporter.warn(
            `VM ${this.t.label}: its install is settled as failed (${v.why}); \`pulumi up --replace\` reinstalls it`,
          );
          return { ...rest, ...seen, installComplete: false, installProblem: v.why };
        }
        break;
    }
    const lost = this.state.installLost!;
    reporter.warn(
      `VM ${this.t.label}: its install is still unconfirmed (${v.why}); ${settleTime(lost)}: ` +
        "until then an `up` plans no change for it while it runs, and the first `up` or `refresh` from then records it",
    );
    return { ...this.state, ...seen, installLost: { ...lost, seen: lost.seen || this.rounds.mem.seen } };
  }
}
