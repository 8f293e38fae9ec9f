// Installs of one user-given name on one endpoint, in this process. When no
// answer named the VMID the server picked, a new VM with the name the install
// sent is this install's only if nothing else here could have made it: an
// install of the same name whose hold overlapped this one's makes it
// contested (the VM could be either's), whichever began first.

interface Hold {
  contested: boolean;
}

export interface NameHold {
  /** another install of this name on this endpoint ran in this process while this one was held */
  contested(): boolean;
  release(): void;
}

const NONE: NameHold = { contested: () => false, release: () => undefined };

/** Every hold of one process: one per ProcessScope. */
export class NameHolds {
  private readonly holds = new Map<string, Set<Hold>>();

  /** Held from before the pre-install list until the install and its follow are over. `key`: the endpoint key. */
  hold(key: string, name: string | undefined): NameHold {
    if (name === undefined) return NONE;
    const holds = this.holds;
    const k = `${key}\n${name}`;
    let set = holds.get(k);
    if (set === undefined) {
      set = new Set();
      holds.set(k, set);
    }
    const mine: Hold = { contested: set.size > 0 };
    for (const other of set) other.contested = true;
    set.add(mine);
    const of = set;
    let held = true;
    return {
      contested: () => mine.contested,
      release() {
        if (!held) return;
        held = false;
        of.delete(mine);
        if (of.size === 0 && holds.get(k) === of) holds.delete(k);
      },
    };
  }
}
