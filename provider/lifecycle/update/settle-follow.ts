// An update of a VM whose install is still unconfirmed (its stream was lost
// and the server may still be installing it) must not change anything yet: a
// shutdown for a new cpu, or a start for `running: true`, would act on a VM
// in the middle of its install. So the update first follows the install to a
// verdict, by the same rules as create's follow (the reboot rule, the
// timeline), and plans only then, waiting no longer than settleWaitMs. Still
// unsettled then, the state stays unconfirmed: an update with steps fails
// having changed nothing (update), one without is recorded as it is, and the
// next `up` asks again.
import type { GoPveQemuApi } from "../../client";
import { clockOf, timingOf, duration, poll, errorText } from "../core";
import type { LifecycleContext, Redactor } from "../core";
import { InstallWatch } from "../install";
import type { Followed, Verdict } from "../install";
import type { LostInstall, VmState } from "../model";
import { lookOf, observe, observedFields } from "../observe";
import type { Observation, Sight } from "../observe";

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
  const lost = state.installLost;
  if (state.installState !== "unconfirmed" || lost === undefined) return state;
  const clock = clockOf(t.ctx);
  const { followTimeoutMs, settleWaitMs } = timingOf(t.ctx);
  const capAt = Math.min(lost.settleBy, clock.now() + Math.min(followTimeoutMs, settleWaitMs));
  t.ctx.reporter.info(
    `VM ${t.label}: its install is not settled yet (its stream was lost at ${lost.step ? `step "${lost.step}"` : "the start"}); ` +
      `following it before anything is changed, for up to ${duration(Math.max(0, capAt - clock.now()))}`,
  );
  const watch = new Watch(t, state, lost);
  const result = await poll(t.ctx, {
    probe: () => watch.rounds.round(watch, capAt),
    done: (v) => v.kind !== "follow",
    timeoutMs: Math.max(0, capAt - clock.now()) + timingOf(t.ctx).pollIntervalMs,
    intervalMs: () => watch.rounds.intervalMs(),
    onRound: (r) => {
      if (!watch.rounds.quick)
        t.ctx.reporter.debug(`VM ${t.label}: following its install: ${r.value?.why ?? "no answer"}`);
    },
  });
  const verdict = result.reached ? result.value : await watch.rounds.round(watch, Number.NEGATIVE_INFINITY);
  return watch.settled(verdict);
}

/** The VM whose install is followed; the rounds of observe -> decide are an InstallWatch's. */
class Watch implements Followed {
  private last: Observation | undefined;
  readonly rounds: InstallWatch;

  constructor(
    private readonly t: SettleTarget,
    private readonly state: VmState,
    lost: LostInstall,
  ) {
    const withNode = state.inputs?.node !== undefined;
    this.rounds = new InstallWatch({ client: t.client, ctx: t.ctx, withNode, key: t.key }, lost, lost.seen);
  }

  vmid(): number {
    return this.t.vmid;
  }

  async look(): Promise<Sight> {
    const { client, vmid, ctx, redact } = this.t;
    try {
      this.last = await observe(client, vmid, { vmName: this.state.vmName, live: true }, ctx.signal);
      return { look: lookOf(this.last), observation: this.last };
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      return { look: { kind: "unreadable", error: errorText(err, redact) } };
    }
  }

  /** The verdict as the state to plan from. */
  settled(v: Verdict): VmState | undefined {
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
      `VM ${this.t.label}: its install is still unconfirmed (${v.why}); it can be settled from ` +
        `${new Date(lost.settleBy).toISOString()}: the next \`pulumi up\` or \`pulumi refresh\` asks again`,
    );
    return { ...this.state, installLost: { ...lost, seen: lost.seen || this.rounds.mem.seen } };
  }
}
