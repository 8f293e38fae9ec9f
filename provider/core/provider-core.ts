// The provider core: everything one provider process shares between its
// calls, whichever way in they come through (the dynamic provider, the
// resource plugin, or a program's data sources): the settings read from
// stack config and the environment (or the error they failed with), the
// stack config's values by key, one client per distinct connection, this
// machine's install journal and server nodes, the passwords check withheld,
// the engine log, the cancel watch, the checks that ask the server, and the
// coordination of the lifecycle's operations (ProcessScope). One object,
// made by `configure`, owns it all: no module of provider/ keeps state.
import * as lifecycle from "../lifecycle";
import { DYNAMIC_NS, readSettings, type ProviderSettings } from "../settings";
import type { CancelWatch } from "./cancel-watch";
import { ClientPool } from "./clients";
import { OperationTimeouts } from "./deadline";
import { ClusterReads } from "./cluster-reads";
import { EngineLog, type LogTransport } from "./engine-log";
import { PasswordStash } from "./password-stash";
import { unknownsOf, type Unknowns } from "./unknowns";

export interface CoreOptions {
  /** The environment the settings fall back to (process.env). */
  env: NodeJS.ProcessEnv;
  /** The engine's marker of an unknown value. */
  engineUnknown: string;
  /** The engine's Log RPC, made on first use; none: lines go to stderr. */
  log?: () => LogTransport | undefined;
  /** This process's cancel watch, when the process is the provider's own. */
  cancel?: CancelWatch;
}

export class ProviderCore {
  readonly unknowns: Unknowns;
  readonly passwords = new PasswordStash();
  readonly log: EngineLog;
  readonly cancel: CancelWatch | undefined;
  /** The lifecycle's coordination across the operations of this process. */
  readonly process = new lifecycle.ProcessScope();
  /** The data sources' snapshots of the cluster. */
  readonly clusters = new ClusterReads(this);
  /** The customTimeouts the engine sent with the operations in progress (on the resource plugin). */
  readonly timeouts = new OperationTimeouts();
  /**
   * The stack's identity the provider was configured with, on the resource
   * plugin (its provider inputs keep it); undefined before Configure, at a
   * preview that cannot know it, and on the dynamic provider (whose Vms carry it).
   */
  providerIdentity: string | undefined;
  private readonly clients: ClientPool;
  private readonly env: NodeJS.ProcessEnv;
  /** Until `configure` runs (it always does first in the engine), the environment alone. */
  private current: ProviderSettings;
  /**
   * A bad setting. The engine runs configure once and then sends every call,
   * so the error is kept and every call fails with it rather than running
   * on the environment's settings alone.
   */
  private settingsError: Error | undefined;
  /** Every string in the stack config, to the key that holds it (see configIndex). */
  private stackConfig = new Map<string, string>();
  private installJournal: lifecycle.InstallJournal | undefined;
  private knownNodes: lifecycle.ServerNodes | undefined;
  private serverChecks: { for: ProviderSettings; checks: lifecycle.ServerChecks } | undefined;

  constructor(opts: CoreOptions) {
    this.env = opts.env;
    this.unknowns = unknownsOf(opts.engineUnknown);
    this.log = new EngineLog(once(opts.log ?? (() => undefined)));
    this.cancel = opts.cancel;
    this.current = readSettings(() => undefined, this.env);
    this.clients = new ClientPool(() => this.current);
  }

  /**
   * The settings of this provider, read through `get` (a lookup by full key,
   * `<ns>:<key>`) and the environment; `index` finds the config key that
   * holds a value. Throws a bad setting's error, which every call then fails with.
   */
  configure(get: (key: string) => unknown, index: Map<string, string>, ns: string = DYNAMIC_NS): void {
    this.stackConfig = index;
    try {
      this.current = readSettings(get, this.env, ns);
      this.settingsError = undefined;
    } catch (err) {
      this.settingsError = err instanceof Error ? err : new Error(String(err));
      throw this.settingsError;
    }
  }

  /** The settings every call runs with; throws the error `configure` failed with, if it did. */
  settings(): ProviderSettings {
    if (this.settingsError) throw this.settingsError;
    return this.current;
  }

  /** The stack config key that holds this value, if any. */
  configKeyOf(value: string): string | undefined {
    return this.stackConfig.get(value);
  }

  client(conn: lifecycle.ResolvedConnection) {
    return this.clients.clientFor(conn);
  }

  /** This machine's install journal (GO_PVE_QEMU_JOURNAL_DIR, else the user's cache folder). */
  journal(): lifecycle.InstallJournal {
    this.installJournal ??= lifecycle.fileJournal(lifecycle.defaultJournalDir(this.env));
    return this.installJournal;
  }

  /** Which node each server calls its own, beside the install journal. */
  serverNodes(): lifecycle.ServerNodes {
    this.knownNodes ??= lifecycle.fileServerNodes(lifecycle.defaultJournalDir(this.env));
    return this.knownNodes;
  }

  /** The node the server at this endpoint calls its own, when an install on this machine showed it. */
  serverNodeOf(endpoint: string): Promise<string | undefined> {
    return this.serverNodes()
      .get(endpoint)
      .catch(() => undefined);
  }

  /** The checks that see every resource of the program and ask the server: the same ones while the settings stay. */
  serverChecksFor(s: ProviderSettings): lifecycle.ServerChecks {
    if (this.serverChecks?.for !== s) {
      const checks = new lifecycle.ServerChecks({
        client: (conn) => this.client(conn),
        connectionDefaults: s.connection,
        defaultTokenSource: s.tokenSource,
        ...s.serverChecks,
      });
      this.serverChecks = { for: s, checks };
    }
    return this.serverChecks.checks;
  }

  /**
   * The context of one operation. Its signal fires on what this process can
   * observe of a cancelled deployment (see the cancel watch); `signal`, when
   * given, is the operation's own, which also fires with that (a deadline's).
   */
  lifecycleContext(urn: string, identity?: string, signal = this.cancel?.signal): lifecycle.LifecycleContext {
    const settings = this.settings();
    return {
      reporter: this.log.reporter(urn),
      process: this.process,
      client: (conn) => this.client(conn),
      connectionDefaults: settings.connection,
      timing: settings.timing,
      allowHardStop: settings.allowHardStop,
      downtime: settings.downtime,
      urn,
      journal: this.journal(),
      serverNodes: this.serverNodes(),
      ...(identity ? { identity } : {}),
      ...(signal ? { signal } : {}),
    };
  }

  /** Runs one operation for a resource and delivers its last log lines before the answer. */
  async finish<T>(urn: string, work: Promise<T>): Promise<T> {
    const answer = async (): Promise<T> => {
      try {
        return await work;
      } finally {
        await this.log.flush(urn);
      }
    };
    // In flight until its last lines are out: an abort exits the process only after that.
    return this.cancel ? this.cancel.track(answer()) : answer();
  }
}

/** `make` called once, on first use. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** A provider core for this process. */
export function configure(opts: CoreOptions): ProviderCore {
  return new ProviderCore(opts);
}
