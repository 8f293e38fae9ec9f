// Auto-assigned VMIDs the way the server picks them (service/assignIP.go): one
// probe per candidate, started from both ends of ASSIGN_IP_START..END at once
// (start, end, start+1, end-1, ...), at most 10 running together (a
// semaphore), each looking at the configs in /etc/pve, running `qm config` and
// dialing the candidate's IP on port 22. The first free answer wins - not the
// lowest free VMID. Goroutines reach the semaphore in no fixed order and probe
// latencies vary (a dial to a silent IP can hang), so the pick is modelled
// with seeded randomness: same seed, same picks.
import type { Rng } from "./random";

export interface ProbeCluster {
  start: number;
  end: number;
  /** A VM config exists (qm config succeeds). */
  taken(vmid: number): boolean;
  /** The candidate's IP answers on port 22. */
  answers(vmid: number): boolean;
}

export interface ProbePick {
  vmid: number;
  /** When the winning answer came, in units of one typical probe (durations.checkVmidAuto). */
  after: number;
}

const SLOTS = 10;
/** How far (in queue places) a goroutine is usually scheduled away from its creation order... */
const SCATTER = 24;
/** ...and how often it runs at any point of the queue instead. */
const STRAY = 0.15;

/** The server's candidate order: both ends inwards. */
export function candidateOrder(start: number, end: number): number[] {
  let lo = start < 100 ? 100 : start;
  let hi = end === 0 || end > 254 ? 254 : end;
  if (lo > hi) [lo, hi] = [hi, lo];
  const order: number[] = [];
  while (lo <= hi) {
    order.push(lo);
    if (lo !== hi) order.push(hi);
    lo++;
    hi--;
  }
  return order;
}

/** The first free answer, or null when every candidate is taken. */
export function probeVmid(cluster: ProbeCluster, rng: Rng): ProbePick | null {
  const order = candidateOrder(cluster.start, cluster.end);
  const queue = order
    .map((vmid, i) => ({ vmid, key: rng.chance(STRAY) ? rng.next() * order.length : i + rng.next() * SCATTER }))
    .sort((a, b) => a.key - b.key);
  const slots: number[] = new Array<number>(SLOTS).fill(0);
  let best: ProbePick | null = null;
  for (const { vmid } of queue) {
    const slot = slots.indexOf(Math.min(...slots));
    const begin = slots[slot] as number;
    let latency: number;
    let free = false;
    if (cluster.taken(vmid)) {
      latency = 0.1; // the config glob finds it at once
    } else if (cluster.answers(vmid)) {
      latency = rng.between(0.3, 0.8); // qm config fails, the dial connects
    } else {
      free = true;
      // qm config fails, the dial fails: usually fast, sometimes it hangs a while.
      latency = rng.chance(0.25) ? rng.between(2, 10) : rng.between(0.8, 2);
    }
    const finish = begin + latency;
    slots[slot] = finish;
    if (free && (best === null || finish < best.after)) best = { vmid, after: finish };
  }
  return best;
}
