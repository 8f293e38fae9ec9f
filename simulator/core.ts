// The simulator's shared state and bookkeeping: configuration, cluster state,
// fault book, clock, counters, and the background work (flows that outlive
// their request, graceful shutdowns, restarts after a reboot) that close()
// must end and idle() awaits.
import { setMaxListeners } from "node:events";
import { Clock, SimulatorClosed } from "./clock";
import type { ResolvedConfig } from "./config";
import { FaultBook } from "./faults";
import { InstallLog } from "./install-log";
import type { StateFile } from "./persist";
import { rngFor, type Rng } from "./random";
import { MeasuredRates } from "./rates";
import { RebootMoments } from "./reboot-moment";
import type { Op } from "./fault-rules";
import { PowerTimeline } from "./power-timeline";
import { Store } from "./state";

export interface SimulatorStats {
  /** Requests per operation (plus `admin` and `notFound`). */
  requests: Record<string, number>;
  installsStarted: number;
  /** Reached `VM installation completed`. */
  installsSucceeded: number;
  /** Ended with an error event. */
  installsFailed: number;
  /** Ended with `event: close` but neither error nor completion (shape 3). */
  installsSilent: number;
  /** Installs with an auto-assigned VMID that lost the race at `creating VM`. */
  vmidCollisions: number;
  faultsFired: number;
  connectionsDropped: number;
  /** Streams a corruption struck (fault rules or the measured rates). */
  streamsCorrupted: number;
  /** Flows and timers still running server-side. */
  activeFlows: number;
}

export class SimCore {
  readonly store: Store;
  readonly faults: FaultBook;
  readonly clock: Clock;
  readonly stats: SimulatorStats = {
    requests: {},
    installsStarted: 0,
    installsSucceeded: 0,
    installsFailed: 0,
    installsSilent: 0,
    vmidCollisions: 0,
    faultsFired: 0,
    connectionsDropped: 0,
    streamsCorrupted: 0,
    activeFlows: 0,
  };
  /** ALLOW_IPS, storages and IPs answering on 22 can change at run time. */
  allowIps: string;
  storages: Record<string, boolean>;
  ipsInUse: number[];
  /** VMs whose `qm shutdown` waits for the guest: call to end the wait (the guest is off). */
  readonly shutdowns = new Map<number, () => void>();
  /** Probe latencies of auto VMIDs. */
  readonly probeRng: Rng;
  /** The measured-rates mode, when on. */
  rates: MeasuredRates | null;
  /** VMs between a qm reboot's return and Proxmox's start of them. */
  readonly reboots: RebootMoments;

  private readonly abort = new AbortController();
  private readonly flows = new Set<Promise<unknown>>();
  private readonly stalled = new Set<() => void>();

  /**
   * `initial`: the state to start from instead of the state file or the seeds
   * (a restart); `installs` and `timeline`: the install records and power
   * changes kept from before it.
   */
  constructor(
    readonly cfg: ResolvedConfig,
    initial?: StateFile,
    readonly installs: InstallLog = new InstallLog(),
    readonly timeline: PowerTimeline = new PowerTimeline(),
  ) {
    // Every sleep of every flow listens for the close: many at once is normal (a dozen installs side by side).
    setMaxListeners(0, this.abort.signal);
    // The clock first: the store stamps power changes with its time.
    this.clock = new Clock(cfg.speed, this.abort.signal);
    this.store = new Store(cfg, initial, timeline, () => this.clock.now());
    this.probeRng = rngFor(cfg.seed, "probe");
    this.rates = cfg.measuredRates ? this.newRates() : null;
    this.reboots = new RebootMoments(
      this.clock,
      this.store,
      () => this.cfg.durations.rebootStopped,
      (work) => this.track(work),
      (line) => this.log(line),
    );
    this.allowIps = cfg.allowIps;
    this.storages = { ...cfg.storages };
    this.ipsInUse = [...cfg.ipsInUse];
    this.faults = new FaultBook((rule, q) => {
      this.stats.faultsFired++;
      this.log(`fault ${rule.id ?? ""} (${rule.kind}) fired: ${q.op} at "${q.step}"${q.vmid ? ` vmid ${q.vmid}` : ""}`);
    });
    for (const rule of cfg.faults) this.faults.add(rule);
  }

  newRates(): MeasuredRates {
    return new MeasuredRates(rngFor(this.cfg.seed, "rates"));
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  log(line: string): void {
    this.cfg.logSink?.(line);
  }

  count(op: Op | "admin" | "notFound"): void {
    this.stats.requests[op] = (this.stats.requests[op] ?? 0) + 1;
  }

  /** Runs server-side work that may outlive its request; close() stops it, idle() waits for it. */
  track(work: Promise<unknown>): void {
    const p = work
      .catch((err: unknown) => {
        if (!(err instanceof SimulatorClosed)) this.log(`background work failed: ${String(err)}`);
      })
      .finally(() => {
        this.flows.delete(p);
        this.stats.activeFlows = this.flows.size;
      });
    this.flows.add(p);
    this.stats.activeFlows = this.flows.size;
  }

  /** A stalled response stays open until the client leaves or we close. */
  holdOpen(destroy: () => void): void {
    this.stalled.add(destroy);
  }

  /** Resolves when no server-side work is left (a dropped install has finished, say). */
  async idle(): Promise<void> {
    while (this.flows.size > 0) await Promise.allSettled([...this.flows]);
  }

  async shutdown(): Promise<void> {
    this.abort.abort();
    // Waiting shutdowns die with the process (their sleeps reject): no `ok` goes out.
    this.shutdowns.clear();
    for (const destroy of this.stalled) destroy();
    this.stalled.clear();
    await this.idle();
  }

  /**
   * `qm shutdown` waits for the guest: resolves once it is off, after the
   * guest shutdown time (durations.shutdownGrace) or sooner when the VM is
   * stopped another way (a hard stop, drift). The VM reads `running` meanwhile.
   */
  async shutdownGuest(vmid: number): Promise<void> {
    const guest = this.store.vms.get(vmid);
    // The power button is pressed: the guest stops serving now, though it reads running until it is off.
    if (guest?.status === "running" && !this.shutdowns.has(vmid)) this.store.noteService(guest, "shutting-down");
    if (await this.waitForGuest(vmid, this.cfg.durations.shutdownGrace)) return;
    const vm = this.store.vms.get(vmid);
    if (vm && this.store.setPower(vm, "stopped")) {
      this.log(`VM ${vmid} reached stopped after shutdown`);
    }
  }

  /**
   * qm shutdown's wait for the guest, `simMs` long (the VM shows
   * shuttingDown meanwhile). True when it was ended by other means first:
   * whoever ended it set the VM's state.
   */
  async waitForGuest(vmid: number, simMs: number): Promise<boolean> {
    this.shutdowns.get(vmid)?.();
    const wait = this.clock.timer(simMs);
    let ended = false;
    const end = (): void => {
      ended = true;
      wait.cancel();
    };
    this.shutdowns.set(vmid, end);
    try {
      await wait.done;
    } finally {
      if (this.shutdowns.get(vmid) === end) this.shutdowns.delete(vmid);
    }
    return ended;
  }

  /**
   * The VM's power changed by other means (a hard stop, a start, its
   * removal): a waiting shutdown answers now, and a reboot's pending restart
   * will not happen.
   */
  cancelStop(vmid: number): void {
    const end = this.shutdowns.get(vmid);
    this.shutdowns.delete(vmid);
    end?.();
    this.reboots.cancel(vmid);
  }
}
