// What this deployment will do with a VM whose install is still unconfirmed,
// from one look at the server now, said at preview (the engine asks for the
// diff at `up` too, before the update that settles it). Nothing is recorded
// here, and a server that cannot be asked only makes the words vaguer: a
// preview never fails for it.
import { parseState, resolveConnection } from "../model";
import type { ResolvedConnection, VmState } from "../model";
import { clockOf, duration, errorText, sessionOf, timingOf } from "../core";
import type { LifecycleContext } from "../core";
import { lookOf, observe } from "../observe";
import { settled } from "../install";

/** Says what the update will make of the unconfirmed install of VM `id`; nothing when it is not unconfirmed. */
export async function foreseeSettle(id: string, olds: VmState, ctx: LifecycleContext): Promise<void> {
  if (olds.installState !== "unconfirmed" || olds.installLost === undefined) return;
  const state = parseState(olds, id);
  const lost = olds.installLost;
  let conn: ResolvedConnection;
  try {
    conn = state.connection ?? resolveConnection(undefined, ctx.connectionDefaults);
  } catch {
    return; // no server to ask: the update says what it cannot do
  }
  const { client, redact, label } = sessionOf(ctx, state, conn, [state.password]);
  const from = new Date(lost.settleBy).toISOString();
  const head = `VM ${label}: its install is unconfirmed (${lost.reason ?? `stream lost at ${lost.step ? `step "${lost.step}"` : "the start"}`})`;
  let now: ReturnType<typeof settled>;
  try {
    const seen = await observe(client, state.vmid, { vmName: state.vmName, live: true }, ctx.signal);
    now = settled(state, lookOf(seen), clockOf(ctx).now());
  } catch (err) {
    ctx.reporter.warn(
      `${head}; the server could not be asked (${errorText(err, redact)}): up settles it from what it shows then`,
    );
    return;
  }
  const wait = duration(timingOf(ctx).settleWaitMs);
  const verdict: Record<typeof now.kind, string> = {
    done: `up records it as installed (${now.why})`,
    "failed-left": `up records it as a failed install (${now.why}), and the next up replaces it`,
    gone: `up drops it from state (${now.why})`,
    unconfirmed: `up follows it for up to ${wait}, then keeps it unconfirmed: the server's answers settle it from ${from} at the latest`,
  };
  ctx.reporter.warn(`${head}; as the server shows it now, ${verdict[now.kind]}`);
}
