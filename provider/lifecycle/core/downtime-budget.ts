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
  /** the VM, one key per VM across servers (its server's key and its VMID) */
  id: string;
  /** the VM, as messages name it */
  vm: string;
  group?: string;
  /** the server's key (endpointKey) and its address as messages name it */
  server: { key: string; endpoint: string };
}

/** A place held: give it back when the VM is up again, or stop the rollout when the update failed. */
export interface DowntimePlace {
  /** the VM is up again (or the deployment was cancelled): the place goes to the next VM waiting */
  leave(): void;
  /** the update failed: no further VM of these scopes goes down in this deployment; returns the ones held back now */
  stop(why: string): string[];
}

interface Waiter {
  id: string;
  vm: string;
  grant(): void;
  refuse(err: Error): void;
}

/** A request on its way to its places: those it holds, and how to give up the one it waits for. */
interface Pending {
  vm: string;
  held: Scope[];
  abandon(err: Error): void;
}

/** The budget of a group, looked up as the group's own key only (a group may be called "constructor"). */
export function budgetOf(rules: DowntimeRules, group: string): number | undefined {
  return Object.hasOwn(rules.budgets, group) ? rules.budgets[group] : undefined;
}

/** What a request waits for, in words, or undefined when it goes in at once. */
function waitingFor(scopes: Scope[]): string | undefined {
  const full = scopes.filter((s) => !s.stopped && (s.down.size >= s.limit || s.queue.length > 0));
  if (full.length === 0) return undefined;
  return full
    .map((s) => `${s.name} has ${s.down.size} of ${s.limit} down (${[...s.down.values()].join(", ")})`)
    .join("; ");
}

const cancelled = () => new LifecycleError("cancelled", { code: CODES.cancelled });

/** One budget: a group's, or a server's. VMs by their id, each with its label for messages. */
class Scope {
  readonly down = new Map<string, string>();
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
  enter(id: string, vm: string, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(cancelled());
    if (this.stopped) return Promise.reject(this.heldBack(vm));
    if (this.down.size < this.limit && this.queue.length === 0) {
      this.down.set(id, vm);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.drop(waiter);
        reject(cancelled());
      };
      const waiter: Waiter = {
        id,
        vm,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          this.down.set(id, vm);
          resolve();
        },
        refuse: (err) => {
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  leave(id: string): void {
    if (!this.down.delete(id)) return;
    this.next();
  }

  /** Stops the rollout here; the waiting VMs are refused, and their names returned. */
  stop(id: string, vm: string, why: string): string[] {
    this.down.delete(id);
    this.stopped ??= { by: vm, why };
    const waiting = this.queue.splice(0);
    for (const w of waiting) w.refuse(this.heldBack(w.vm));
    return waiting.map((w) => w.vm);
  }

  private next(): void {
    while (!this.stopped && this.down.size < this.limit && this.queue.length > 0) this.queue.shift()!.grant();
  }

  private drop(waiter: Waiter): void {
    const at = this.queue.indexOf(waiter);
    if (at !== -1) this.queue.splice(at, 1);
    this.next();
  }
}

export class DowntimeBudget {
  private readonly scopes = new Map<string, Scope>();
  private readonly pending = new Set<Pending>();

  /**
   * A place in the request's group and server budgets, waited for as long as
   * they are full; undefined when no budget applies (nothing to wait for).
   * Rejects with GPQ_HELD_BACK when the rollout there stopped, also while
   * the request holds one place and waits for the other.
   */
  async enter(
    request: DowntimeRequest,
    rules: DowntimeRules,
    signal?: AbortSignal,
    onWait?: (why: string) => void,
  ): Promise<DowntimePlace | undefined> {
    const scopes = this.scopesOf(request, rules);
    if (scopes.length === 0) return undefined;
    const { id, vm } = request;
    const waited = waitingFor(scopes);
    if (waited !== undefined) onWait?.(waited);
    // In a fixed order (group, then server): two updates never wait on each other's place.
    const held: Scope[] = [];
    const giveUp = new AbortController();
    let abandoned: Error | undefined;
    const pending: Pending = {
      vm,
      held,
      abandon: (err) => {
        abandoned = err;
        giveUp.abort();
      },
    };
    const waitSignal = signal ? AbortSignal.any([signal, giveUp.signal]) : giveUp.signal;
    this.pending.add(pending);
    try {
      for (const scope of scopes) {
        await scope.enter(id, vm, waitSignal);
        held.push(scope);
        const stopped = held.find((s) => s.stopped);
        if (stopped) throw stopped.heldBack(vm);
      }
    } catch (err) {
      for (const s of held) s.leave(id);
      throw abandoned ?? err;
    } finally {
      this.pending.delete(pending);
    }
    return {
      leave: () => {
        for (const s of held) s.leave(id);
      },
      stop: (why) => {
        const names = held.flatMap((s) => s.stop(id, vm, why));
        // Those holding a place in a scope stopped here while they wait for another: refused too.
        for (const p of [...this.pending]) {
          const stopped = p.held.find((s) => held.includes(s) && s.stopped);
          if (stopped === undefined) continue;
          p.abandon(stopped.heldBack(p.vm));
          names.push(p.vm);
        }
        return [...new Set(names)];
      },
    };
  }

  private scopesOf(request: DowntimeRequest, rules: DowntimeRules): Scope[] {
    const out: Scope[] = [];
    const { group, server } = request;
    const budget = group === undefined ? undefined : budgetOf(rules, group);
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
