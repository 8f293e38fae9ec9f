// The functions the engine calls for a Vm (check, diff, create, read,
// update, delete), kept thin so that all behaviour stays in the lifecycle:
// each takes the engine's property bags apart, runs the lifecycle function
// with this process's context, delivers the resource's last log lines, and
// answers in the shape the engine records, a partially created or updated
// VM included.
import type * as pulumi from "@pulumi/pulumi";
import * as lifecycle from "../lifecycle";
import { providerCancelWatch } from "./cancel";
import { outputsOf, split, withInputKeys, withKeys, type Bag } from "./engine-bags";
import { engineReporter, flushEngineLog } from "./engine-log";
import { stashPassword, withPassword } from "./password-stash";
import { configKeyOf, configured, journal, lifecycleContext, serverChecksFor } from "./provider-setup";
import { fromEngine, toEngine } from "./unknowns";

/**
 * The engine records a resource as partially created/updated when the error
 * carries `id` and `properties` (ErrorResourceInitFailed); `reasons` are shown.
 */
class ResourceInitError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Bag,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** Runs one operation for a resource and delivers its last log lines before answering the engine. */
async function finish<T>(urn: string, work: Promise<T>): Promise<T> {
  const answer = async (): Promise<T> => {
    try {
      return await work;
    } finally {
      await flushEngineLog(urn);
    }
  };
  // In flight until its last lines are out: an abort exits the process only after that.
  const watch = providerCancelWatch();
  return watch ? watch.track(answer()) : answer();
}

/**
 * The inputs alone first (every bad property at once); when they are valid,
 * what needs the other resources or the server (the lifecycle's ServerChecks).
 */
export async function check(olds: Bag, news: Bag): Promise<pulumi.dynamic.CheckResult> {
  const n = split(news);
  const s = configured();
  const old = split(olds).props;
  const result = lifecycle.check(fromEngine(old), fromEngine(n.props), {
    connectionDefaults: s.connection,
    defaultEndpointSource: s.endpointSource,
    urn: n.urn,
    configKeyOf: (value) => configKeyOf(value),
  });
  if (result.failures.length === 0) {
    const checks = serverChecksFor(s);
    // A resource to be created, in a stack whose identity is known: what its create would take over is said now.
    const identity = n.identity !== undefined && fromEngine(n.identity) !== lifecycle.UNKNOWN ? n.identity : undefined;
    const claim = Object.keys(old).length === 0 && identity ? { identity, journal: journal() } : undefined;
    const more = await finish(n.urn, checks.check(n.urn, result.inputs, engineReporter(n.urn), claim));
    result.failures.push(...more);
  }
  if (result.withheldPassword !== undefined && result.inputs.passwordHash !== undefined) {
    stashPassword(n.urn, result.inputs.passwordHash, result.withheldPassword);
  }
  return { inputs: withInputKeys(toEngine(result.inputs), news), failures: result.failures };
}

export async function diff(id: string, olds: Bag, news: Bag): Promise<pulumi.dynamic.DiffResult> {
  configured();
  const n = split(news);
  const old = split(olds).props as lifecycle.VmState;
  // An unconfirmed install: what the update will make of it, from what the server shows now (preview says it);
  // one that no wait can settle yet is no change by itself.
  const foreseen = await finish(n.urn, lifecycle.foreseeSettle(id, old, lifecycleContext(n.urn)));
  const desired = fromEngine(n.props) as lifecycle.VmInputs;
  const d = lifecycle.diff(id, old, desired, { urn: n.urn, installHeld: foreseen.held });
  // Said at preview (and again right before the update): the diff itself shows only `~ cpu: 2 => 4`.
  if (d.downtime !== undefined) await finish(n.urn, Promise.resolve(engineReporter(n.urn).warn(d.downtime)));
  return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function create(inputs: Bag): Promise<pulumi.dynamic.CreateResult> {
  const { props, urn, identity } = split(inputs);
  try {
    const install = withPassword(props, urn) as lifecycle.VmInputs;
    const { id, state } = await finish(urn, lifecycle.create(install, lifecycleContext(urn, identity)));
    return { id, outs: outputsOf(state, inputs) };
  } catch (err) {
    if (err instanceof lifecycle.PartialError) {
      throw new ResourceInitError(err.message, err.id, outputsOf(err.state, inputs), err.reasons);
    }
    throw err;
  }
}

export async function read(id: string, props?: Bag): Promise<pulumi.dynamic.ReadResult> {
  const { props: state, urn } = split(props);
  const result = await finish(urn, lifecycle.read(id, state as Partial<lifecycle.VmState>, lifecycleContext(urn)));
  if (!result) {
    // An empty id tells the engine the resource is gone.
    return { id: "" };
  }
  return {
    id: result.id,
    props: outputsOf(result.state, props),
    ...(result.inputs ? { inputs: withKeys(result.inputs, props) } : {}),
  };
}

export async function update(id: string, olds: Bag, news: Bag): Promise<pulumi.dynamic.UpdateResult> {
  const o = split(olds);
  try {
    const state = await finish(
      o.urn,
      lifecycle.update(
        id,
        o.props as lifecycle.VmState,
        split(news).props as lifecycle.VmInputs,
        lifecycleContext(o.urn),
      ),
    );
    return { outs: outputsOf(state, news) };
  } catch (err) {
    if (err instanceof lifecycle.PartialError) {
      throw new ResourceInitError(err.message, id, outputsOf(err.state, news), err.reasons);
    }
    throw err;
  }
}

export async function remove(id: string, props: Bag): Promise<void> {
  const { props: state, urn } = split(props);
  await finish(urn, lifecycle.remove(id, state as lifecycle.VmState, lifecycleContext(urn)));
}
