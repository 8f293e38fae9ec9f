// The dynamic provider's real implementation, loaded by module path inside
// the provider process (see serialized-provider.ts). It adapts Pulumi's
// property bags to the lifecycle functions and back: it strips the engine's
// bookkeeping keys, builds the lifecycle context (client per connection,
// reporter on the engine log, settings from stack config and the
// environment), and turns partial failures into the error shape with which
// the engine records a partially created or updated resource.
// First: the Node.js version is checked before undici loads (it fails obscurely on 20).
import "../node-version";
// Then Node's compile cache, before the heavy modules below load.
import "./compile-cache";
import type * as pulumi from "@pulumi/pulumi";
import { GoPveQemuClient, shareWindowMs } from "../client";
import type { GoPveQemuApi } from "../client";
import * as lifecycle from "../lifecycle";
import { providerCancelWatch } from "./cancel";
import { engineReporter, flushEngineLog } from "./engine-log";
import { identityMethods } from "./identity-impl";
import { readSettings, type ProviderSettings } from "./settings";
import { fromEngine, toEngine } from "./unknowns";

/** Keys the engine and the glue add to every property bag; never the lifecycle's business. */
const PROVIDER_KEY = "__provider";
const URN_KEY = "__urn";
/** The stack's identity (stack-identity.ts), an input of every Vm: the lifecycle gets it in its context. */
const IDENTITY_KEY = "__stackIdentity";

type Bag = Record<string, unknown>;

const clients = new Map<string, GoPveQemuApi>();
/** Until `configure` runs (it always does first in the engine), the environment alone. */
let settings: ProviderSettings = readSettings(() => undefined, process.env);
/**
 * A bad `goPveQemu:*` value. The provider host runs `configure` once and then
 * serves every call, so the error is kept and every call fails with it rather
 * than running on the environment's settings alone.
 */
let settingsError: Error | undefined;

function configured(): ProviderSettings {
  if (settingsError) throw settingsError;
  return settings;
}

function clientFor(conn: lifecycle.ResolvedConnection): GoPveQemuApi {
  // One client (one pooled dispatcher) per distinct connection setting.
  const key = JSON.stringify([conn.endpoint, conn.token ?? "", conn.headers ?? {}, conn.caCert ?? ""]);
  let client = clients.get(key);
  if (!client) {
    client = new GoPveQemuClient({
      ...conn,
      streamIdleTimeoutMs: settings.stream.idleTimeoutMs,
      streamOverallTimeoutMs: settings.stream.overallTimeoutMs,
      streamHeadersTimeoutMs: settings.stream.headersTimeoutMs,
      // The VMs of one deployment share list answers, briefly enough that every poll round is fresh.
      listShareMs: shareWindowMs(settings.timing.pollIntervalMs ?? lifecycle.DEFAULT_TIMING.pollIntervalMs),
    });
    clients.set(key, client);
  }
  return client;
}

function split(bag: Bag | undefined): { props: Bag; urn: string; provider: unknown; identity?: string } {
  const { [PROVIDER_KEY]: provider, [URN_KEY]: urn, [IDENTITY_KEY]: identity, ...props } = bag ?? {};
  return {
    props,
    urn: typeof urn === "string" ? urn : "",
    provider,
    ...(typeof identity === "string" && identity !== "" ? { identity } : {}),
  };
}

/**
 * `signal` fires on what this process can observe of a cancelled deployment
 * (see cancel.ts: a second Ctrl-C, pulumi killed); the engine's own Cancel
 * call never reaches a dynamic provider.
 */
function context(urn: string, identity?: string): lifecycle.LifecycleContext {
  const settings = configured();
  const signal = providerCancelWatch()?.signal;
  return {
    reporter: engineReporter(urn),
    client: clientFor,
    connectionDefaults: settings.connection,
    timing: settings.timing,
    allowHardStop: settings.allowHardStop,
    urn,
    journal: journal(),
    ...(identity ? { identity } : {}),
    ...(signal ? { signal } : {}),
  };
}

let installJournal: lifecycle.InstallJournal | undefined;
/** This machine's install journal (GO_PVE_QEMU_JOURNAL_DIR, else the user's cache folder). */
function journal(): lifecycle.InstallJournal {
  installJournal ??= lifecycle.fileJournal(lifecycle.defaultJournalDir(process.env));
  return installJournal;
}

/**
 * Adds back the keys the engine needs to find this provider and resource
 * again. The host turns the result into a protobuf Struct, which refuses
 * undefined anywhere; a JSON round trip drops such keys (a refusal there
 * would lose a VM that was just made).
 */
function withKeys(state: object, from: Bag | undefined): Bag {
  const out: Bag = JSON.parse(JSON.stringify(state)) as Bag;
  if (from?.[PROVIDER_KEY] !== undefined) out[PROVIDER_KEY] = from[PROVIDER_KEY];
  if (from?.[URN_KEY] !== undefined) out[URN_KEY] = from[URN_KEY];
  return out;
}

/**
 * A VM's state as the engine's outputs. The SDK fills an output the provider
 * does not return with the input of the same name: a password state keeps
 * only the hash of (storePassword false) is returned as null, so that the
 * Vm's `password` output is not the password, and no program exports it into
 * state by accident.
 */
function outputsOf(state: lifecycle.VmState, from: Bag | undefined): Bag {
  const out = withKeys(state, from);
  if (state.passwordHash !== undefined && state.password === undefined) out.password = null;
  return out;
}

/** The inputs check hands back: the engine's keys, and the stack's identity, kept as given. */
function withInputKeys(inputs: object, from: Bag | undefined): Bag {
  const out = withKeys(inputs, from);
  if (from?.[IDENTITY_KEY] !== undefined) out[IDENTITY_KEY] = from[IDENTITY_KEY];
  return out;
}

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

export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  stackConfig = configIndex(req.config);
  try {
    settings = readSettings((key) => req.config.get(key), process.env);
    settingsError = undefined;
  } catch (err) {
    settingsError = err instanceof Error ? err : new Error(String(err));
    throw settingsError;
  }
}

/** Every string in the stack config, to the key that holds it (see configIndex). */
let stackConfig = new Map<string, string>();

/**
 * The engine hands a dynamic provider the whole stack config and keeps it in
 * state as the default provider's inputs. The SDK's Config offers `get` by
 * key only; its key-value record (`rawConfig`) is read where present, so that
 * check can tell a password that state holds anyway. Without it, nothing is
 * found and nothing else changes.
 */
function configIndex(config: pulumi.dynamic.ConfigureRequest["config"]): Map<string, string> {
  const raw = (config as { rawConfig?: unknown }).rawConfig;
  const index = new Map<string, string>();
  const visit = (key: string, v: unknown): void => {
    if (typeof v === "string") {
      index.set(v, key);
      // structured config arrives as its JSON text
      if (/^[[{]/.test(v)) {
        try {
          visit(key, JSON.parse(v));
        } catch {
          // plain text after all
        }
      }
    } else if (v !== null && typeof v === "object") {
      for (const inner of Object.values(v)) visit(key, inner);
    }
  };
  if (raw !== null && typeof raw === "object") for (const [key, v] of Object.entries(raw)) visit(key, v);
  return index;
}

/**
 * What the stored provider text (serialized-provider.ts) calls once the
 * implementation is loaded: the provider object gets this module's methods,
 * then the configuration is applied. The methods go on first, so a bad
 * setting still reaches every call (each fails with it).
 */
export async function attach(
  provider: pulumi.dynamic.ResourceProvider,
  req: pulumi.dynamic.ConfigureRequest,
): Promise<void> {
  // The StackIdentity resource's text is the same function with a name beside it.
  if ((provider as { resource?: unknown }).resource === "StackIdentity") Object.assign(provider, identityMethods);
  else Object.assign(provider, { check, diff, create, read, update, delete: remove });
  return configure(req);
}

/** The checks that see every resource of the program and ask the server, for the settings they were made with. */
let serverChecks: { for: ProviderSettings; checks: lifecycle.ServerChecks } | undefined;

/**
 * The inputs alone first (every bad property at once); when they are valid,
 * what needs the other resources or the server (see lifecycle/server-checks).
 */
export async function check(olds: Bag, news: Bag): Promise<pulumi.dynamic.CheckResult> {
  const n = split(news);
  const s = configured();
  const old = split(olds).props;
  const result = lifecycle.check(fromEngine(old), fromEngine(n.props), {
    connectionDefaults: s.connection,
    defaultEndpointSource: s.endpointSource,
    urn: n.urn,
    configKeyOf: (value) => stackConfig.get(value),
  });
  if (result.failures.length === 0) {
    if (serverChecks?.for !== s) {
      const checks = new lifecycle.ServerChecks({
        client: clientFor,
        connectionDefaults: s.connection,
        defaultTokenSource: s.tokenSource,
        ...s.serverChecks,
      });
      serverChecks = { for: s, checks };
    }
    // A resource to be created, in a stack whose identity is known: what its create would take over is said now.
    const identity = n.identity !== undefined && fromEngine(n.identity) !== lifecycle.UNKNOWN ? n.identity : undefined;
    const claim = Object.keys(old).length === 0 && identity ? { identity, journal: journal() } : undefined;
    const more = await finish(n.urn, serverChecks.checks.check(n.urn, result.inputs, engineReporter(n.urn), claim));
    result.failures.push(...more);
  }
  if (result.withheldPassword !== undefined && result.inputs.passwordHash !== undefined) {
    withheld.set(n.urn, { hash: result.inputs.passwordHash, password: result.withheldPassword });
  }
  return { inputs: withInputKeys(toEngine(result.inputs), news), failures: result.failures };
}

/**
 * storePassword false: the passwords check took out of the inputs, by URN,
 * for the create that follows in this same process (the engine checks every
 * resource before it creates it). Never written anywhere.
 */
const withheld = new Map<string, { hash: string; password: string }>();

/** The inputs a create installs with: a withheld password put back, when its hash is the one in the inputs. */
function withPassword(props: Bag, urn: string): Bag {
  const hash = props.passwordHash;
  if (typeof hash !== "string" || props.password !== undefined) return props;
  const kept = withheld.get(urn);
  if (kept === undefined || kept.hash !== hash) {
    throw new lifecycle.LifecycleError(
      "password: this deployment did not receive the password (storePassword: false keeps it out of state, and " +
        "only the check of the same deployment hands it to the create); run `pulumi up` again",
    );
  }
  return { ...props, password: kept.password };
}

export async function diff(id: string, olds: Bag, news: Bag): Promise<pulumi.dynamic.DiffResult> {
  configured();
  const n = split(news);
  const d = lifecycle.diff(id, split(olds).props as lifecycle.VmState, fromEngine(n.props) as lifecycle.VmInputs, {
    urn: n.urn,
  });
  return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace };
}

export async function create(inputs: Bag): Promise<pulumi.dynamic.CreateResult> {
  const { props, urn, identity } = split(inputs);
  try {
    const install = withPassword(props, urn) as lifecycle.VmInputs;
    const { id, state } = await finish(urn, lifecycle.create(install, context(urn, identity)));
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
  const result = await finish(urn, lifecycle.read(id, state as Partial<lifecycle.VmState>, context(urn)));
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
      lifecycle.update(id, o.props as lifecycle.VmState, split(news).props as lifecycle.VmInputs, context(o.urn)),
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
  await finish(urn, lifecycle.remove(id, state as lifecycle.VmState, context(urn)));
}
