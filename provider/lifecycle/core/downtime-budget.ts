// How many VMs may be down at once during one deployment. An update that
// takes a running VM down (a shutdown to change cpu, memory, disk or node, a
// reboot, or a start) first takes a place in its downtime group's budget and
// in its server's, and gives them back once its last power step answered: a
// VM counts as down from its shutdown until its start has answered (the
// server's start waits for SSH). Without a budget for its group or its
// server, an update takes no place and nothing waits, as before budgets.
//
// A rollout stops on the first failure: when an update that holds a place
// fails, its group (and, with a server cap, its server) is stopped for the
// rest of this process's deployment. The updates waiting there, and every
// later one, fail at once without touching their VM, naming the VM that
// failed, so that the next `up` goes on from there.
//
// One per ProcessScope: the provider process serves one deployment, and every
// Vm update of it goes through the same object.
import { CODES, LifecycleError } from "../model";

/** The budgets of one deployment: places per downtime group, and for all VMs of one server. */
export interface DowntimeRules {
  /** group name -> how many of its VMs may be down at once */
  budgets: Readonly<Record<string, number>>;
  /** how many VMs of one server may be down at once; none: no cap */
  perServer?: number;
}

export const NO_DOWNTIME_RULES: DowntimeRules = { budgets: {} };

/** What takes a place: one VM's update. */
export interface DowntimeRequest {
  /** the VM, as messages name it */
  vm: string;
  group?: string;
  /** the server's key (endpointKey) and its address as messages name it */
  server: { key: string; endpoint: string };
}

/** A place held: give it back when the VM is up again, or stop the rollout when the update failed. */
export interface DowntimePlace {
  /** what the VM waited for, if it waited; for its log */
  readonly waited: string | undefined;
  /** the VM is up again (or meant to stay down): the place goes to the next VM waiting */
  leave(): void;
  /** the update failed: no further VM of these scopes goes down in this deployment; returns the ones waiting */
  stop(why: string): string[];
}

interface Waiter {
  vm: string;
  grant(): void;
  refuse(err: Error): void;
}

/** One budget: a group's, or a server's. */
class Scope {
  readonly down = new Set<string>();
  readonly queue: Waiter[] = [];
  stopped: { by: string; why: string } | undefined;

  constructor(
    /** `downtime group "web"`, `the VMs of http://...` */
    readonly name: string,
    readonly limit: number,
  ) {}

  heldBack(vm: string): LifecycleError {
    const { by, why } = this.stopped!;
    return new LifecycleError(
      `VM ${vm} was not shut down: the rollout of ${this.name} stopped when VM ${by} failed (${why}); ` +
        `${vm} is as it was, running and unchanged. Once VM ${by} is fixed, \`pulumi up\` goes on with the rest`,
      { code: CODES.heldBack },
    );
  }

  /** Waits for a place; rejects when the scope stops or the signal fires. */
  enter(vm: string, signal: AbortSignal | undefined): Promise<void> {
    if (this.stopped) return Promise.reject(this.heldBack(vm));
    if (this.down.size < this.limit && this.queue.length === 0) {
      this.down.add(vm);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.drop(waiter);
        reject(new LifecycleError("cancelled", { code: CODES.cancelled }));
      };
      const waiter: Waiter = {
        vm,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.down.add(vm);
          resolve();
        },
        refuse: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  leave(vm: string): void {
    if (!this.down.delete(vm)) return;
    this.next();
  }

  /** Stops the rollout here; the waiting VMs are refused, and their names returned. */
  stop(by: string, why: string): string[] {
    this.down.delete(by);
    this.stopped ??= { by, why };
    const waiting = this.queue.splice(0);
    for (const w of waiting) w.refuse(this.heldBack(w.vm));
    return waiting.map((w) => w.vm);
  }

  private next(): void {
    while (this.down.size < this.limit && this.queue.length > 0) this.queue.shift()!.grant();
  }

  private drop(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at !== -1) this.queue.splice(at, 1);
    this.next();
  }
}

export class DowntimeBudget {
  private readonly scopes = new Map<string, Scope>();

  /**
   * A place in the request's group and server budgets, waited for as long as
   * they are full; undefined when no budget applies (nothing to wait for).
   * Rejects with GPQ_HELD_BACK when the rollout there stopped.
   */
  async enter(
    request: DowntimeRequest,
    rules: DowntimeRules,
    signal?: AbortSignal,
    onWait?: (why: string) => void,
  ): Promise<DowntimePlace | undefined> {
    const scopes = this.scopesOf(request, rules);
    if (scopes.length === 0) return undefined;
    const { vm } = request;
    const full = scopes.filter((s) => !s.stopped && (s.down.size >= s.limit || s.queue.length > 0));
    const waited =
      full.length === 0
        ? undefined
        : full.map((s) => `${s.name} has ${s.down.size} of ${s.limit} down (${[...s.down].join(", ")})`).join("; ");
    if (waited !== undefined) onWait?.(waited);
    // In a fixed order (group, then server): two updates never wait on each other's place.
    const held: Scope[] = [];
    try {
      for (const scope of scopes) {
        await scope.enter(vm, signal);
        held.push(scope);
      }
    } catch (err) {
      for (const s of held) s.leave(vm);
      throw err;
    }
    return {
      waited,
      leave: () => {
        for (const s of held) s.leave(vm);
      },
      stop: (why) => [...new Set(held.flatMap((s) => s.stop(vm, why)))],
    };
  }

  private scopesOf(request: DowntimeRequest, rules: DowntimeRules): Scope[] {
    const out: Scope[] = [];
    const { group, server } = request;
    const budget = group === undefined ? undefined : rules.budgets[group];
    if (group !== undefined && budget !== undefined) {
      out.push(this.scope(`group:${group}`, `downtime group ${JSON.stringify(group)}`, budget));
    }
    if (rules.perServer !== undefined) {
      out.push(this.scope(`server:${server.key}`, `the VMs of ${server.endpoint}`, rules.perServer));
    }
    return out;
  }

  private scope(key: string, name: string, limit: number): Scope {
    let scope = this.scopes.get(key);
    if (scope === undefined) {
      scope = new Scope(name, limit);
      this.scopes.set(key, scope);
    }
    return scope;
  }
}
