// Duplicate suppression by event id (SSE services that send ids: a replay after a reconnect,
// or a relay that delivers twice, repeats frames with the same id).
// go-pve-qemu sends no ids, so this costs nothing there. The window is bounded:
// duplicates come from recent replays, and an endless stream must not grow it.

const DEFAULT_DEDUP_WINDOW = 4096;

export class IdWindow {
  private readonly seen = new Set<string>();
  private readonly order: string[];
  private next = 0;

  constructor(private readonly size: number = DEFAULT_DEDUP_WINDOW) {
    this.order = new Array<string>(size);
  }

  /** true the first time an id is offered (within the window), false for a repeat. */
  admit(id: string): boolean {
    if (this.seen.has(id)) return false;
    const evicted = this.order[this.next];
    if (evicted !== undefined) this.seen.delete(evicted);
    this.order[this.next] = id;
    this.next = (this.next + 1) % this.size;
    this.seen.add(id);
    return true;
  }
}
