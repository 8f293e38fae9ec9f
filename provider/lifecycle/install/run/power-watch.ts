// Reads of a VM's live power state (`status`, which is one `qm status`, a
// Perl process, on the Proxmox host) for the reboot rule, paced per server:
// at most one every rebootWatchIntervalMs to one server, however many
// installs are watched or followed there. Two users share the pace:
//
// - the follow's quick rounds (InstallWatch), after a stream was lost;
// - the watch of installs whose stream is still being read, from the moment
//   their SSH initialization starts: a chatty init script can break the
//   stream's framing in a way that surfaces only when the server closes the
//   response, by which time the install's reboot has come and gone. One loop
//   per server reads the VMs in that phase in turn (not one loop per VM), and
//   what it saw is handed to the follow if the stream then fails.
import type { GoPveQemuApi } from "../../../client";
import { clockOf, timingOf } from "../../core";
import { phaseIndex } from "../../../client";
import type { Phase } from "../../../client";
import type { InstallJob } from "../job";
import type { LifecycleContext } from "../../core";
import { RUNNING } from "../../observe";
import { remember } from "../rules";
import type { FollowMemory } from "../rules";

/** Waits for this server's next turn to read a VM's power, and takes it (the process's one pace per server). */
export function powerTurn(key: string, ctx: LifecycleContext): Promise<void> {
  return ctx.process.powerPace.turn(key, clockOf(ctx), timingOf(ctx).rebootWatchIntervalMs, ctx.signal);
}

/** A VM whose stream is read while its SSH initialization runs. */
interface Watched {
  vmid: number;
  client: GoPveQemuApi;
  ctx: LifecycleContext;
  /** what its power reads showed, in the follow's terms */
  mem: FollowMemory;
  /** its power cannot be read (status answers only for the server's own node), or it rebooted: no more reads */
  done: boolean;
}

/** Starts watching VM `vmid`'s power on server `key`; `stop` ends it and gives what was seen. */
function watchPower(key: string, vmid: number, client: GoPveQemuApi, ctx: LifecycleContext): () => FollowMemory {
  const w: Watched = { vmid, client, ctx, mem: { seen: false }, done: false };
  const leave = ctx.process.powerPace.join(key, {
    get done() {
      return w.done;
    },
    signal: ctx.signal,
    async read() {
      try {
        await powerTurn(key, w.ctx);
      } catch {
        w.done = true; // cancelled
        return;
      }
      if (!w.done) await readPower(w);
    },
  });
  return () => {
    w.done = true;
    leave();
    return w.mem;
  };
}

async function readPower(w: Watched): Promise<void> {
  let word: string;
  try {
    word = await w.client.status(w.vmid, { signal: w.ctx.signal });
  } catch {
    // Another node's VM, or a busy server: the follow, if any, looks properly.
    w.done = true;
    return;
  }
  w.mem = remember(w.mem, { kind: "present", running: word === RUNNING, node: "", tagged: true }, clockOf(w.ctx).now());
  if (w.mem.rebooted === true) w.done = true; // the one fact this watch is for
}

/**
 * The VM's power, read while its stream is read and its SSH initialization
 * runs (watchPower): the install's reboot may come and go before a broken
 * stream is noticed. Not for a VM the request sends to a node (`status`
 * answers only for the server's own), nor without the reboot watch (its interval not shorter than
 * the full looks').
 */
export class StreamPower {
  private stopWatch: (() => FollowMemory) | undefined;
  private seen: FollowMemory | undefined;

  constructor(
    private readonly job: InstallJob,
    /** the request names a node: the VM is migrated there before it starts */
    private readonly withNode: boolean,
  ) {}

  reached(phase: Phase, vmid: number | undefined): void {
    const { rebootWatchIntervalMs, pollIntervalMs } = timingOf(this.job.ctx);
    if (phase === "sshInit" && vmid !== undefined && this.stopWatch === undefined && this.seen === undefined) {
      if (this.withNode || rebootWatchIntervalMs >= pollIntervalMs) return;
      this.stopWatch = watchPower(this.job.key, vmid, this.job.client, this.job.ctx);
    } else if (phaseIndex(phase) > phaseIndex("sshInit")) {
      this.stop(); // the stream itself says the SSH initialization is over
    }
  }

  /** Ends the watch; what it saw, if it ran. */
  stop(): FollowMemory | undefined {
    if (this.stopWatch !== undefined) {
      this.seen = this.stopWatch();
      this.stopWatch = undefined;
    }
    return this.seen;
  }
}
