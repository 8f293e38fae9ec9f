// The pace of a server's live power reads (`status`, one `qm status`, a Perl
// process on the Proxmox host): at most one every rebootWatchIntervalMs to
// one server, however many installs are watched or followed there, and one
// loop per server that takes the watched VMs in turn. One per ProcessScope:
// every operation of the process shares it through its context.

/** The lifecycle's clock, as much of it as the pace uses. */
interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** One VM in a server's loop: `read` is its turn's one `status`. */
export interface PacedRead {
  /** no more turns (gone, rebooted, cancelled) */
  done: boolean;
  signal?: AbortSignal;
  /** waits for the turn (the pace), then reads; never rejects */
  read(): Promise<void>;
}

interface ServerLoop {
  reads: PacedRead[];
  running: boolean;
}

export class PowerPace {
  /** Each server's pace: the time its next `status` may be sent. */
  private readonly nextAt = new Map<string, number>();
  /** The VMs watched on each server, in the order of their turns, and whether its loop runs. */
  private readonly loops = new Map<string, ServerLoop>();

  /** Waits for this server's next turn to read a VM's power, and takes it. */
  async turn(key: string, clock: Clock, spacing: number, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const at = this.nextAt.get(key) ?? Number.NEGATIVE_INFINITY;
      const now = clock.now();
      // A turn further off than one spacing was set by another clock (a test's): it binds nothing.
      if (now >= at || at - now > spacing) {
        this.nextAt.set(key, now + spacing);
        return;
      }
      await clock.sleep(at - now, signal);
    }
  }

  /** Adds a VM to server `key`'s loop (started if it is not running); the answer takes it out. */
  join(key: string, read: PacedRead): () => void {
    let loop = this.loops.get(key);
    if (loop === undefined) {
      loop = { reads: [], running: false };
      this.loops.set(key, loop);
    }
    loop.reads.push(read);
    if (!loop.running) void this.run(key, loop);
    const of = loop;
    return () => {
      of.reads = of.reads.filter((x) => x !== read);
    };
  }

  /** One loop per server: the watched VMs in turn, one read per turn. */
  private async run(key: string, loop: ServerLoop): Promise<void> {
    loop.running = true;
    try {
      for (let i = 0; ; i++) {
        const live = loop.reads.filter((r) => !r.done && r.signal?.aborted !== true);
        if (live.length === 0) return;
        await live[i % live.length]!.read();
      }
    } finally {
      loop.running = false;
      if (loop.reads.length === 0) this.loops.delete(key);
    }
  }
}
