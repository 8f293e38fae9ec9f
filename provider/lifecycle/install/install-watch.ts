// Following an install that nobody hears any more, one round at a time, the
// same for create's follow and for an update that must first settle an
// unconfirmed install: look at the VM, remember what it showed, tighten the
// timeline, decide (decideLost).
//
// Between two full looks (the list and the live power state, every
// pollIntervalMs), a VM that runs and may still be rebooted by its install is
// asked for its live power state alone, every rebootWatchIntervalMs. The
// reboot's stopped moment is the one sign that the install got past the step
// that can still remove the VM, and it is short: Proxmox's `qm reboot` powers
// the guest off and returns, and the start comes from its event daemon
// (`qm cleanup`, then a start) a few seconds later. Missed, nothing else the
// server shows tells a finished install from one in its init script, and the
// follow runs to the timeline's bound. A quick round never decides: it
// remembers a stop, and asks for a full look at once when the VM runs again
// after it, or when `status` fails (the VM may be gone).
import { phaseIndex } from "../../client";
import type { GoPveQemuApi } from "../../client";
import { clockOf, openBoundsOf, timingOf } from "../core";
import type { LifecycleContext } from "../core";
import { RUNNING, exists } from "../observe";
import type { Look, ObservedLook } from "../observe";
import type { LostInstall } from "../model";
import { decideLost, phaseShown, remember } from "./rules";
import type { FollowMemory, LostVerdict } from "./rules";
import { advance, stoppedGrace } from "./timeline";
import { powerTurn } from "./run";

/** The VM a follow follows: its VMID once known, and a full look at it. */
export interface FollowedVm {
  vmid(): number | undefined;
  look(): Promise<ObservedLook>;
}

export interface WatchTarget {
  client: GoPveQemuApi;
  ctx: LifecycleContext;
  /** the install was given a node: its migration is one of the remaining steps */
  withNode: boolean;
  /**
   * The install's stream, in this run, was cut by the connection's end: a
   * refused connection before the server answered anything since tells that
   * its process died then, with the install unfinished (a restart).
   */
  restartEvidence?: boolean;
  /** the server's key: its reads of live power share one pace (powerTurn) */
  key?: string;
}

export class InstallWatch {
  mem: FollowMemory;
  /** the last full look's verdict, which a quick round repeats */
  private verdict: LostVerdict | undefined;
  private lastFullAt = Number.NEGATIVE_INFINITY;
  /** the last full look read the live power state (`status` is node-local: elsewhere it never answers) */
  private liveReadable = false;
  /** the last round was a quick one: nothing new to say */
  quick = false;
  /** the server answered a look since the follow began */
  private answered = false;

  constructor(
    private readonly target: WatchTarget,
    /** the install's timeline, tightened as the VM shows progress */
    public t: LostInstall,
    seen: boolean,
    /** what the VM's power showed before the follow (while its stream was read) */
    mem?: FollowMemory,
  ) {
    this.mem = mem ?? { seen };
  }

  /**
   * One round: a quick look at the VM's power when that is all that can
   * change the verdict now, else a full look. A round at or past `capAt` (the
   * last one) is always a full look: its verdict is final.
   */
  async round(vm: FollowedVm, capAt: number): Promise<LostVerdict> {
    const vmid = vm.vmid();
    const last = capAt <= clockOf(this.target.ctx).now();
    if (!last && vmid !== undefined && this.verdict !== undefined && this.watchingReboot(true)) {
      const quick = await this.quickLook(vmid);
      if (quick !== undefined) {
        this.mem = remember(this.mem, quick, clockOf(this.target.ctx).now());
        this.quick = true;
        return this.verdict;
      }
    }
    this.quick = false;
    const looked = await vm.look();
    const now = clockOf(this.target.ctx).now();
    this.lastFullAt = now;
    this.liveReadable = looked.observation?.status !== undefined;
    const look = looked.look;
    this.noteRestart(look, now);
    const open = openBoundsOf(this.target.ctx);
    if (exists(look)) {
      this.mem = remember(this.mem, look, now);
      this.t = advance(this.t, phaseShown(look)!, now, open, this.target.withNode);
    }
    this.verdict = decideLost(this.t, look, this.mem, now, {
      capAt: Math.min(capAt, this.t.settleBy),
      vmidKnown: vm.vmid() !== undefined,
      grace: stoppedGrace(open),
    });
    return this.verdict;
  }

  /** A refusal before any answer, right after the stream's connection ended: the server's process had died. */
  private noteRestart(look: Look, now: number): void {
    if (look.kind !== "unreadable") this.answered = true;
    else if (look.refused === true && !this.answered && this.target.restartEvidence === true) {
      this.mem = { ...this.mem, restartedAt: this.mem.restartedAt ?? now };
    }
  }

  /** How long until the next round: short while the install's reboot may come and could be missed. */
  intervalMs(): number {
    const { pollIntervalMs, rebootWatchIntervalMs } = timingOf(this.target.ctx);
    return this.watchingReboot(false) ? Math.min(pollIntervalMs, rebootWatchIntervalMs) : pollIntervalMs;
  }

  /**
   * The VM was seen running (the install is past its `qm start`), its reboot
   * has not been seen, the install may still reach it, and its live power can
   * be read. `sinceFull`: and a full look is not due yet.
   */
  private watchingReboot(sinceFull: boolean): boolean {
    const { pollIntervalMs, rebootWatchIntervalMs } = timingOf(this.target.ctx);
    if (rebootWatchIntervalMs >= pollIntervalMs || !this.liveReadable) return false;
    if (this.mem.ran !== true || this.mem.rebooted === true) return false;
    if (phaseIndex(this.t.phase) > phaseIndex("sshInit")) return false;
    const now = clockOf(this.target.ctx).now();
    if (now >= this.t.undoBy) return false; // the next full look settles it
    return !sinceFull || now - this.lastFullAt < pollIntervalMs;
  }

  /** The live power state alone, as a look; undefined when only a full look can tell what it means. */
  private async quickLook(vmid: number): Promise<Look | undefined> {
    const { client, ctx } = this.target;
    let word: string;
    try {
      if (this.target.key !== undefined) await powerTurn(this.target.key, ctx);
      word = await client.status(vmid, { signal: ctx.signal });
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      return undefined; // gone, or the server is busy: look properly
    }
    const running = word === RUNNING;
    // Running again after a stop: the reboot, or another VM under this VMID; the list tells which.
    if (running && this.mem.stoppedAfterRun === true) return undefined;
    return { kind: "present", running, node: "", tagged: true };
  }
}
