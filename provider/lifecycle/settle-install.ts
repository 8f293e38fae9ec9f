// Where read (refresh) and update (the next up) settle an install recorded
// as unconfirmed (its stream was lost before the server could no longer undo
// it): the rules and the state they give are settle.ts's; this says to the
// user what was settled. A disabled VM lists no real values (node "-", os
// "-", not running), so it is not taken as evidence: it stays unconfirmed.
import { clockOf } from "./context";
import type { LifecycleContext } from "./context";
import type { Observation } from "./observe";
import { settleState } from "./settle";
import type { VmState } from "./state";

/** The state after this look settled its install; undefined when the server removed the VM. */
export function settleInstall(
  state: VmState,
  seen: Observation,
  ctx: LifecycleContext,
  label: string,
): VmState | undefined {
  if (state.installState !== "unconfirmed" || seen.disabled) return state;
  const settled = settleState(state, seen, clockOf(ctx).now());
  switch (settled.kind) {
    case "gone":
      ctx.reporter.info(`VM ${label}: its install is settled as failed and the VM is gone (${settled.why})`);
      return undefined;
    case "done":
      ctx.reporter.info(`VM ${label}: its install is settled as complete (${settled.why})`);
      return settled.state;
    case "failed-left":
      ctx.reporter.warn(
        `VM ${label}: its install is settled as failed (${settled.why}); \`pulumi up --replace\` reinstalls it`,
      );
      return settled.state;
    case "unconfirmed":
      ctx.reporter.info(`VM ${label}: its install is still unconfirmed (${settled.why})`);
      return settled.state;
  }
}
