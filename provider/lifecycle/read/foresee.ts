// What this deployment will do with a VM whose install is still unconfirmed,
// from one look at the server now (planUnconfirmed), said at preview (the
// engine asks for the diff at `up` too, before the update that settles it).
// Its answer decides whether the diff plans anything: a VM held as it is
// (there, running, seen before; only time can settle it) is no change, so a
// preview shows none and an `up` does not wait for it. Nothing is recorded
// here, and a server that cannot be asked only makes the words vaguer: a
// preview never fails for it.
import { parseState, resolveConnection } from "../model";
import type { ResolvedConnection, VmState } from "../model";
import { clockOf, duration, errorText, sessionOf, timingOf } from "../core";
import type { LifecycleContext } from "../core";
import { lookOf, observe } from "../observe";
import { planUnconfirmed, settleTime, withTimeline } from "../install";
import type { UnconfirmedVerdict } from "../install";

/** What the next up does with the unconfirmed install of VM `id`: `held` when nothing (no change, no wait). */
export interface Foreseen {
  held: boolean;
}

/** Says what the update will make of the unconfirmed install of VM `id`; nothing when it is not unconfirmed. */
export async function foreseeSettle(id: string, olds: VmState, ctx: LifecycleContext): Promise<Foreseen> {
  if (olds.installState !== "unconfirmed" || olds.installLost === undefined) return { held: false };
  const state = withTimeline(parseState(olds, id), ctx);
  const lost = state.installLost;
  let conn: ResolvedConnection;
  try {
    conn = state.connection ?? resolveConnection(undefined, ctx.connectionDefaults);
  } catch {
    return { held: false }; // no server to ask: the update says what it cannot do
  }
  const { client, redact, label } = sessionOf(ctx, state, conn, [state.password]);
  const head = `VM ${label}: its install is unconfirmed (${lost.reason ?? `stream lost at ${lost.step ? `step "${lost.step}"` : "the start"}`})`;
  let plan: UnconfirmedVerdict;
  try {
    const seen = await observe(client, state.vmid, { vmName: state.vmName, live: true }, ctx.signal);
    plan = planUnconfirmed(state, lookOf(seen), clockOf(ctx).now());
  } catch (err) {
    ctx.reporter.warn(
      `${head}; the server could not be asked (${errorText(err, redact)}): up settles it from what it shows then`,
    );
    return { held: false };
  }
  ctx.reporter.warn(
    `${head}; as the server shows it now, ${said(plan, timingOf(ctx).settleWaitMs)}; ${settleTime(lost)}`,
  );
  return { held: plan.kind === "hold" };
}

function said(plan: UnconfirmedVerdict, settleWaitMs: number): string {
  switch (plan.kind) {
    case "hold":
      return `${plan.why}: no change is planned for it and nothing waits for it; what is not known yet is whether the server still removes it`;
    case "follow":
      return `${plan.why}: up follows it before anything is changed, for up to ${duration(settleWaitMs)} once the VM is there`;
    case "settle": {
      const r = plan.result;
      if (r.kind === "done") return `up records it as installed (${r.why})`;
      if (r.kind === "failed-left") return `up records it as a failed install (${r.why}), and the next up replaces it`;
      return `the server shows it gone (${r.why}): \`pulumi refresh\` drops it from state, then \`pulumi up\` installs it again`;
    }
  }
}
