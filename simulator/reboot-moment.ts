// `qm reboot` is a shutdown followed by a start: Proxmox powers the guest
// off, qm reboot returns, and Proxmox's event daemon starts the VM again. So
// for a moment after qm reboot returns the VM reads stopped (list
// `running:false`, `qm status` stopped) - and the server's checks that read
// the list see it so: shutdown, stop and reboot are refused, start and the
// set/* calls pass. The restart is Proxmox's, not the server's: it happens
// even if the server dies, and a start, removal or drift in between wins.
import type { Clock } from "./clock";
import type { Store } from "./state";

interface Pending {
  /** Resolves once the VM runs again, or the moment was ended by other means. */
  back: Promise<void>;
  cancel: () => void;
}

export class RebootMoments {
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly clock: Clock,
    private readonly store: Store,
    private readonly stoppedMs: () => number,
    private readonly track: (work: Promise<unknown>) => void,
    private readonly log: (line: string) => void,
  ) {}

  /** qm reboot has returned: the VM reads stopped for durations.rebootStopped, then runs again. */
  begin(vmid: number): void {
    this.cancel(vmid);
    const vm = this.store.vms.get(vmid);
    if (!vm) return;
    const ms = this.stoppedMs();
    if (ms <= 0) {
      // No moment to see: the VM stays running, and the timeline shows no stop.
      this.store.setPower(vm, "running");
      return;
    }
    this.store.setPower(vm, "stopped");
    const timer = this.clock.timer(ms);
    const restart = (): void => {
      if (this.pending.get(vmid) !== entry) return;
      this.pending.delete(vmid);
      const now = this.store.vms.get(vmid);
      if (now?.status !== "stopped") return;
      this.store.setPower(now, "running");
      this.log(`VM ${vmid} running again after its reboot`);
    };
    // On close the sleep rejects; Proxmox starts the VM all the same.
    const back = timer.done.catch(() => undefined).then(restart);
    const entry: Pending = { back, cancel: timer.cancel };
    this.pending.set(vmid, entry);
    this.track(back);
  }

  /** The VM is in a reboot's stopped moment: resolves once it is over. */
  whenBack(vmid: number): Promise<void> | undefined {
    return this.pending.get(vmid)?.back;
  }

  /** The VM's power was changed by other means (a start, its removal, drift): no restart follows. */
  cancel(vmid: number): void {
    const entry = this.pending.get(vmid);
    if (!entry) return;
    this.pending.delete(vmid);
    entry.cancel();
  }
}
