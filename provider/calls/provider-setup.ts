// The provider host runs `configure` once and then serves every call of the
// deployment from the same process, so what the calls share lives here as
// module state: the settings read from stack config and the environment (or
// the error they failed with), the stack config's values by key, one client
// per distinct connection, this machine's install journal, the checks that
// ask the server, and the lifecycle context each operation runs with.
import type * as pulumi from "@pulumi/pulumi";
import { GoPveQemuClient, shareWindowMs } from "../client";
import type { GoPveQemuApi } from "../client";
import * as lifecycle from "../lifecycle";
import { providerCancelWatch } from "./cancel";
import { configIndex } from "./config-index";
import { engineReporter } from "./engine-log";
import { DYNAMIC_NS, readSettings, type ProviderSettings } from "../settings";

const clients = new Map<string, GoPveQemuApi>();
/** Until `configure` runs (it always does first in the engine), the environment alone. */
let settings: ProviderSettings = readSettings(() => undefined, process.env);
/**
 * A bad `goPveQemu:*` value. The provider host runs `configure` once and then
 * serves every call, so the error is kept and every call fails with it rather
 * than running on the environment's settings alone.
 */
let settingsError: Error | undefined;
/** Every string in the stack config, to the key that holds it (see configIndex). */
let stackConfig = new Map<string, string>();

/** The dynamic provider's configure: the whole stack config, `goPveQemu:*` keys read. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  applySettings((key) => req.config.get(key), configIndex(req.config), DYNAMIC_NS);
}

/**
 * The settings of this provider process, read through `get` (a lookup by full
 * key, `<ns>:<key>`) and the environment; `index` finds the config key that
 * holds a value. Both doors configure through here.
 */
export function applySettings(get: (key: string) => unknown, index: Map<string, string>, ns: string): void {
  stackConfig = index;
  try {
    settings = readSettings(get, process.env, ns);
    settingsError = undefined;
  } catch (err) {
    settingsError = err instanceof Error ? err : new Error(String(err));
    throw settingsError;
  }
}

/** The settings every call runs with; throws the error `configure` failed with, if it did. */
export function configured(): ProviderSettings {
  if (settingsError) throw settingsError;
  return settings;
}

/** The stack config key that holds this value, if any. */
export function configKeyOf(value: string): string | undefined {
  return stackConfig.get(value);
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

let installJournal: lifecycle.InstallJournal | undefined;
/** This machine's install journal (GO_PVE_QEMU_JOURNAL_DIR, else the user's cache folder). */
export function journal(): lifecycle.InstallJournal {
  installJournal ??= lifecycle.fileJournal(lifecycle.defaultJournalDir(process.env));
  return installJournal;
}

let knownNodes: lifecycle.ServerNodes | undefined;
/** Which node each server calls its own, beside the install journal (the data sources read the same files). */
function serverNodes(): lifecycle.ServerNodes {
  knownNodes ??= lifecycle.fileServerNodes(lifecycle.defaultJournalDir(process.env));
  return knownNodes;
}

/** The node the server at this endpoint calls its own, when an install on this machine showed it. */
export function serverNodeOf(endpoint: string): Promise<string | undefined> {
  return serverNodes()
    .get(endpoint)
    .catch(() => undefined);
}

/** The checks that see every resource of the program and ask the server, for the settings they were made with. */
let serverChecks: { for: ProviderSettings; checks: lifecycle.ServerChecks } | undefined;

/** The server checks for these settings: the same ones for as long as the settings stay. */
export function serverChecksFor(s: ProviderSettings): lifecycle.ServerChecks {
  if (serverChecks?.for !== s) {
    const checks = new lifecycle.ServerChecks({
      client: clientFor,
      connectionDefaults: s.connection,
      defaultTokenSource: s.tokenSource,
      ...s.serverChecks,
    });
    serverChecks = { for: s, checks };
  }
  return serverChecks.checks;
}

/**
 * The context of one operation. `signal` fires on what this process can
 * observe of a cancelled deployment (a second Ctrl-C, pulumi killed: see
 * providerCancelWatch); the engine's own Cancel call never reaches a dynamic
 * provider.
 */
export function lifecycleContext(urn: string, identity?: string): lifecycle.LifecycleContext {
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
    serverNodes: serverNodes(),
    ...(identity ? { identity } : {}),
    ...(signal ? { signal } : {}),
  };
}
