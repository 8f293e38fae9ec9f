// Every change of a VM's power state, in the order it happened: what lets a
// test prove a property over the whole run ("at no moment were more than 3
// VMs of the group down") instead of sampling the state now and then and
// hoping the bad moment fell on a sample. Beside the power state, the two
// moments that bound a guest's downtime for its users: `shutting-down` (qm
// shutdown pressed its power button: its services are going away, though it
// reads running for up to the guest's shutdown time) and `ready` (SSH
// answers again after a start, a reboot or an install: it serves again).

export type PowerStatus = "running" | "stopped";
/** A power state, or one of the two moments of a guest's service. */
export type TimelineStatus = PowerStatus | "shutting-down" | "ready";

/** One change of one VM's power state, or of its service. */
export interface PowerChange {
  vmid: number;
  /** The VM's real name at that moment (`<name>-<vmid>` or `<vmid>`). */
  name: string;
  /** The state it changed to (it was in the other one before), or the service's moment. */
  status: TimelineStatus;
  /** Simulated ms since the simulator started (continues across restart()). */
  simMs: number;
  /** Date.now() at the change. */
  wallMs: number;
}

/** How many changes are kept: the oldest go first, so a long `npm run sim` stays bounded. */
export const POWER_TIMELINE_LIMIT = 10_000;

export class PowerTimeline {
  private readonly entries: PowerChange[] = [];

  constructor(private readonly limit = POWER_TIMELINE_LIMIT) {}

  record(change: PowerChange): void {
    this.entries.push(change);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  /** A copy, oldest first. */
  list(): PowerChange[] {
    return this.entries.map((e) => ({ ...e }));
  }
}

export interface StoppedPeak {
  /** The largest number of the given VMs stopped at the same moment. */
  most: number;
  /**
   * simMs of the change that first brought the count to `most`; undefined
   * when the count was already that high before the first change (or never
   * rose above it).
   */
  at?: number;
  /** The VMs stopped at that moment, ascending. */
  stopped: number[];
}

/**
 * Replays the timeline for the VMs `vmids` and answers the largest number of
 * them that were stopped at once. Changes at the same simulated instant are
 * applied one by one in their recorded order, so a stop recorded before a
 * start at the same instant does count both VMs as stopped for that moment.
 *
 * A VM's state before its first change is the opposite of that change (a
 * change always flips the state). `initiallyStopped` only matters for VMs
 * without any change in the timeline: listed there, they count as stopped
 * throughout. Changes of VMs outside `vmids` are ignored.
 */
export function mostStoppedAtOnce(
  timeline: readonly PowerChange[],
  vmids: readonly number[],
  initiallyStopped: readonly number[] = [],
): StoppedPeak {
  const group = new Set(vmids);
  // Sorting is stable: entries at the same instant keep their recorded order. Power changes only.
  const changes = timeline
    .filter((c) => group.has(c.vmid) && (c.status === "running" || c.status === "stopped"))
    .sort((a, b) => a.simMs - b.simMs);
  const stopped = new Set<number>();
  for (const vmid of group) {
    const first = changes.find((c) => c.vmid === vmid);
    if (first ? first.status === "running" : initiallyStopped.includes(vmid)) stopped.add(vmid);
  }
  const peak: StoppedPeak = { most: stopped.size, stopped: sorted(stopped) };
  for (const change of changes) {
    // A set, not a counter: a repeated entry (a hand-made list, a VMID that was
    // destroyed and made again) cannot count one VM twice.
    if (change.status === "stopped") stopped.add(change.vmid);
    else stopped.delete(change.vmid);
    if (stopped.size > peak.most) {
      peak.most = stopped.size;
      peak.at = change.simMs;
      peak.stopped = sorted(stopped);
    }
  }
  return peak;
}

function sorted(vmids: Set<number>): number[] {
  return [...vmids].sort((a, b) => a - b);
}

/**
 * The largest number of the VMs `vmids` down for their users at the same
 * moment: a VM is down from its shutdown's start (or its stop) until SSH
 * answers again. Each VM is taken as serving before its first entry of the
 * timeline given (slice it from the moment they all served); one that never
 * answers again stays down to the end. `stopped` lists the VMs down at the peak.
 */
export function mostDownAtOnce(timeline: readonly PowerChange[], vmids: readonly number[]): StoppedPeak {
  const group = new Set(vmids);
  const changes = timeline.filter((c) => group.has(c.vmid)).sort((a, b) => a.simMs - b.simMs);
  const down = new Set<number>();
  const peak: StoppedPeak = { most: 0, stopped: [] };
  for (const change of changes) {
    if (change.status === "shutting-down" || change.status === "stopped") down.add(change.vmid);
    else if (change.status === "ready") down.delete(change.vmid);
    if (down.size > peak.most) {
      peak.most = down.size;
      peak.at = change.simMs;
      peak.stopped = sorted(down);
    }
  }
  return peak;
}
