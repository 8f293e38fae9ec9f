// Settling an install recorded as unconfirmed (its stream was lost and its
// outcome was not known in time), from one look now, for refresh and for the
// next up. Without a history of looks, a stopped VM counts as failed only
// once the whole timeline is over. A disabled VM lists no real values, so it
// is no evidence: the install stays unconfirmed.
import { clockOf } from "../core";
import type { LifecycleContext } from "../core";
import { lookOf } from "../observe";
import { settled } from "./lost-rules";
import type { Observation } from "../observe";
import type { VmState } from "../model";

/** The state after this look settled its install, said to the user; undefined when the server removed the VM. */
export function settleUnconfirmed(
  state: VmState,
  seen: Observation,
  ctx: LifecycleContext,
  label: string,
): VmState | undefined {
  if (state.installState !== "unconfirmed" || seen.disabled) return state;
  const result = settled(state, lookOf(seen), clockOf(ctx).now());
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
      ctx.reporter.info(`VM ${label}: its install is still unconfirmed (${result.why})`);
      return result.state;
  }
}
