// Settling an install recorded as unconfirmed (its stream was lost and its
// outcome was not known in time), from one look now, for refresh, preview and
// the next up. Without a history of looks, a stopped VM counts as failed only
// once the whole timeline is over. A disabled VM lists no real values, so it
// is no evidence: the install stays unconfirmed. A VM not listed while the
// server may still create it stays unconfirmed too: absence settles nothing
// before the window is over.
import { clockOf, openBoundsOf } from "../core";
import type { LifecycleContext } from "../core";
import { lookOf } from "../observe";
import { settled } from "./rules";
import { underBounds } from "./timeline";
import type { Observation } from "../observe";
import type { LostInstall, VmState } from "../model";

/** The state after this look settled its install, said to the user; undefined when the server removed the VM. */
export function settleUnconfirmed(
  state: VmState,
  observation: Observation,
  ctx: LifecycleContext,
  label: string,
): VmState | undefined {
  if (state.installState !== "unconfirmed" || state.installLost === undefined || observation.disabled) return state;
  const result = settled(withTimeline(state, ctx), lookOf(observation), clockOf(ctx).now());
  switch (result.kind) {
    case "gone":
      ctx.reporter.info(`VM ${label}: its install is settled as failed and the VM is gone (${result.why})`);
      return undefined;
    case "done":
      ctx.reporter.info(`VM ${label}: its install is settled as complete (${result.why})`);
      return result.state;
    case "failed-left":
      ctx.reporter.warn(
        `VM ${label}: its install is settled as failed (${result.why}); \`pulumi up --replace\` reinstalls it`,
      );
      return result.state;
    case "unconfirmed":
      ctx.reporter.info(
        `VM ${label}: its install is still unconfirmed (${result.why}); ${settleTime(result.state.installLost!)}`,
      );
      return result.state;
  }
}

/** The unconfirmed state with its timeline as it holds under the bounds configured now (underBounds). */
export function withTimeline<S extends VmState>(state: S, ctx: LifecycleContext): S & { installLost: LostInstall } {
  const lost = state.installLost!;
  return { ...state, installLost: underBounds(lost, openBoundsOf(ctx), state.inputs?.node !== undefined) };
}

/** The one time every message about an unconfirmed install names. */
export function settleTime(lost: LostInstall): string {
  return `it can be settled from ${new Date(lost.settleBy).toISOString()} at the latest`;
}
