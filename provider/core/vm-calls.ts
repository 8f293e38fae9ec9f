// The calls the engine makes for a Vm (check, diff, create, read, update,
// delete), for both ways in: each takes what both know (the resource's URN,
// the stack's identity, its inputs or state as plain bags), runs the
// lifecycle function with the core's context, delivers the resource's last
// log lines, and answers plainly. A partially created or updated VM is one
// PartialFailure, whose properties each way in puts on its own wire.
import * as lifecycle from "../lifecycle";
import type { Bag } from "./bag";
import { PartialFailure } from "./partial-failure";
import type { ProviderCore } from "./provider-core";
import { timed, type LastLook } from "./timed-call";

/** What the engine's check hands back: the inputs (the engine's unknowns restored), and each bad property. */
export interface Checked {
  inputs: Bag;
  failures: { property: string; reason: string }[];
}

/** How one changed key changes, and whether that needs a new VM, as the engine's detailed diff says it. */
export type PropertyChange = "add" | "add-replace" | "update" | "update-replace" | "delete" | "delete-replace";

export interface Diffed {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  /** the changed keys: the replaces, then the updates */
  diffs: string[];
  /** each changed key's change; the resource plugin tells the engine (the dynamic provider's host cannot) */
  detailedDiff: Record<string, PropertyChange>;
}

/** A VM found by read: its id, its state as outputs, and the inputs a refresh corrects, if any. */
export interface ReadAnswer {
  id: string;
  state: Bag;
  inputs?: Bag;
}

/**
 * A VM's state as the engine's outputs. The engine refuses undefined
 * anywhere in a Struct; a JSON round trip drops such keys (a refusal there
 * would lose a VM that was just made). The SDK fills an output the provider
 * does not return with the input of the same name: a password state keeps
 * only the hash of (storePassword false) is returned as null, so that the
 * Vm's `password` output is not the password, and no program exports it into
 * state by accident.
 */
export function outputsOf(state: lifecycle.VmState): Bag {
  const out = plain(state);
  if (state.passwordHash !== undefined && state.password === undefined) out.password = null;
  return out;
}

/** A value as the engine can take it: no undefined anywhere. */
export function plain(value: object): Bag {
  return JSON.parse(JSON.stringify(value)) as Bag;
}

/**
 * The inputs alone first (every bad property at once); when they are valid,
 * what needs the other resources or the server (the lifecycle's ServerChecks).
 * `identity`: the stack's, when known; a resource to be created then hears
 * now what its create would take over.
 */
export async function check(
  core: ProviderCore,
  urn: string,
  olds: Bag,
  news: Bag,
  identity?: string,
): Promise<Checked> {
  const { fromEngine, toEngine } = core.unknowns;
  const s = core.settings();
  const result = lifecycle.check(fromEngine(olds), fromEngine(news), {
    connectionDefaults: s.connection,
    defaultEndpointSource: s.endpointSource,
    urn,
    configKeyOf: (value) => core.configKeyOf(value),
  });
  if (result.failures.length === 0) {
    const checks = core.serverChecksFor(s);
    const known = identity !== undefined && fromEngine(identity) !== lifecycle.UNKNOWN ? identity : undefined;
    const claim = Object.keys(olds).length === 0 && known ? { identity: known, journal: core.journal() } : undefined;
    const more = await core.finish(urn, checks.check(urn, result.inputs, core.log.reporter(urn), claim));
    result.failures.push(...more);
  }
  if (result.withheldPassword !== undefined && result.inputs.passwordHash !== undefined) {
    core.passwords.stash(urn, result.inputs.passwordHash, result.withheldPassword);
  }
  return { inputs: plain(toEngine(result.inputs)), failures: result.failures };
}

export async function diff(core: ProviderCore, id: string, urn: string, olds: Bag, news: Bag): Promise<Diffed> {
  core.settings();
  const old = olds as lifecycle.VmState;
  // An unconfirmed install: what the update will make of it, from what the server shows now (preview says it);
  // one that no wait can settle yet is no change by itself.
  const foreseen = await core.finish(urn, lifecycle.foreseeSettle(id, old, core.lifecycleContext(urn)));
  const desired = core.unknowns.fromEngine(news) as lifecycle.VmInputs;
  const d = lifecycle.diff(id, old, desired, { urn, installHeld: foreseen.held });
  // Said at preview (and again right before the update): the diff itself shows only `~ cpu: 2 => 4`.
  if (d.downtime !== undefined) {
    await core.finish(urn, Promise.resolve(core.log.reporter(urn).warn(d.downtime.sentence)));
    if (d.downtime.comesBack) await planDowntime(core, old, desired);
  }
  const detailedDiff = Object.fromEntries(
    Object.entries(d.kinds).map(([key, kind]) => [key, d.replaces.includes(key) ? (`${kind}-replace` as const) : kind]),
  );
  return {
    changes: d.changes,
    replaces: d.replaces,
    deleteBeforeReplace: d.deleteBeforeReplace,
    diffs: [...d.replaces, ...d.update],
    detailedDiff,
  };
}

/**
 * The rollout's plan, said once for the whole stack when the burst of diffs
 * is over: per downtime group (and server, under a cap), how many VMs go
 * down, at most how many at once, in how many waves at least.
 */
async function planDowntime(core: ProviderCore, old: lifecycle.VmState, news: lifecycle.VmInputs): Promise<void> {
  const rules = core.settings().downtime;
  const group =
    typeof news.downtimeGroup === "string" && news.downtimeGroup !== lifecycle.UNKNOWN ? news.downtimeGroup : undefined;
  // The server the update will talk to: the new connection's fields over the one the VM was made with.
  const endpoint = serverOf(news, old, core.settings().connection);
  const key = lifecycle.endpointKey(endpoint);
  const scopes = lifecycle.planScopes(group, { key, endpoint }, rules);
  if (scopes.length === 0) return;
  const stack = core.log.reporter("");
  await core.process.downtimePlan.note(`${key}/${old.vmid}`, scopes, (line) => stack.warn(line));
  await core.log.flush("");
}

function serverOf(news: lifecycle.VmInputs, old: lifecycle.VmState, defaults: lifecycle.ConnectionDefaults): string {
  try {
    return lifecycle.resolveConnection(news.connection, old.connection ?? defaults).endpoint;
  } catch {
    // no endpoint anywhere: the update will say so; the plan counts it under none
    return "";
  }
}

/** A create, bounded by its customTimeouts create when the engine sent one (timed-call.ts). */
export function create(
  core: ProviderCore,
  urn: string,
  inputs: Bag,
  identity?: string,
): Promise<{ id: string; state: Bag }> {
  return timed(core, urn, "create", async (ctxOf) => {
    try {
      const install = core.passwords.withPassword(inputs, urn) as lifecycle.VmInputs;
      const { id, state } = await core.finish(urn, lifecycle.create(install, ctxOf(identity)));
      return { id, state: outputsOf(state) };
    } catch (err) {
      throw partial(err, (e) => e.id);
    }
  });
}

/** The VM as the server shows it; undefined when it is gone. */
export function read(core: ProviderCore, id: string, urn: string, state: Bag): Promise<ReadAnswer | undefined> {
  return readIn(core, id, urn, state, core.lifecycleContext(urn));
}

async function readIn(
  core: ProviderCore,
  id: string,
  urn: string,
  state: Bag,
  ctx: lifecycle.LifecycleContext,
): Promise<ReadAnswer | undefined> {
  const result = await core.finish(urn, lifecycle.read(id, state as Partial<lifecycle.VmState>, ctx));
  if (!result) return undefined;
  return {
    id: result.id,
    state: outputsOf(result.state),
    ...(result.inputs ? { inputs: plain(result.inputs) } : {}),
  };
}

/**
 * The last look after a passed deadline: a read under the look's own signal.
 * What a read says of the VM (a drift from the last known state: the
 * operation's own doing, cut short) would mislead here: its lines go to debug.
 */
function lookAt(core: ProviderCore, id: string, urn: string, state: Bag): LastLook {
  return (signal) => {
    const ctx = core.lifecycleContext(urn, undefined, signal);
    const debug = (msg: string) => ctx.reporter.debug(msg);
    return readIn(core, id, urn, state, { ...ctx, reporter: { info: debug, warn: debug, debug } });
  };
}

/** An update, bounded by its customTimeouts update when the engine sent one. */
export function update(core: ProviderCore, id: string, urn: string, olds: Bag, news: Bag): Promise<Bag> {
  const work = async (ctxOf: (identity?: string) => lifecycle.LifecycleContext) => {
    try {
      const ctx = ctxOf();
      const state = await core.finish(
        urn,
        lifecycle.update(id, olds as lifecycle.VmState, news as lifecycle.VmInputs, ctx),
      );
      return outputsOf(state);
    } catch (err) {
      throw partial(err, () => id);
    }
  };
  return timed(core, urn, "update", work, lookAt(core, id, urn, olds));
}

/** A delete, bounded by its customTimeouts delete when the engine sent one. */
export function remove(core: ProviderCore, id: string, urn: string, state: Bag): Promise<void> {
  const work = async (ctxOf: () => lifecycle.LifecycleContext) =>
    core.finish(urn, lifecycle.remove(id, state as lifecycle.VmState, ctxOf()));
  return timed(core, urn, "delete", work, lookAt(core, id, urn, state));
}

/** The lifecycle's PartialError as the engine's partial failure; any other error as it is. */
function partial(err: unknown, idOf: (e: lifecycle.PartialError) => string): unknown {
  if (!(err instanceof lifecycle.PartialError)) return err;
  return new PartialFailure(err.message, idOf(err), outputsOf(err.state), err.reasons);
}
