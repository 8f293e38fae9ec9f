// The VMID race, avoided within this process. Without `id`, the server picks
// the first free VMID at the install's first step but only takes it at
// `VM creation > creating VM`, often minutes later (the image download sits in
// between). Two installs in that window can pick the same VMID, and the
// second fails. One provider process serves every resource of a deployment,
// so a per-endpoint gate in memory is enough for Pulumi's parallelism (the
// gates live in the process's ProcessScope, reached through the context):
//
// - An AUTO install (no vmid) may start only when no other install on that
//   endpoint is before its VM creation (auto or pinned: the server could pick
//   a pinned VMID whose config does not exist yet). It holds the gate until
//   its VM is created (or the install ends), then the next one may start.
// - A PINNED install never waits for other pinned installs (distinct VMIDs run
//   fully in parallel). It waits only while an auto install is before its VM
//   creation AND that install's VMID is not known yet or equals the pinned
//   one: once the server has said which VMID it picked (the first step, a
//   fraction of a second), a different pinned VMID is safe.
//
// Waiters are served in arrival order. Other clients of the same server are
// out of reach here; create retries once when it loses the race to one.
import { LifecycleError } from "../model";

interface Waiter {
  pinned?: number;
  grant: () => void;
}

interface Gate {
  /** the auto install before its VM creation, and its VMID once known */
  auto: { vmid?: number } | null;
  /** pinned installs before their VM creation (VMID -> count) */
  pinned: Map<number, number>;
  /** VMIDs of every install in flight on this endpoint (until it ends) */
  inFlight: Map<number, number>;
  waiters: Waiter[];
}

function canStart(gate: Gate, pinned: number | undefined): boolean {
  if (pinned === undefined) return gate.auto === null && gate.pinned.size === 0;
  return gate.auto === null || (gate.auto.vmid !== undefined && gate.auto.vmid !== pinned);
}

function bump(map: Map<number, number>, key: number, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}

/** Grants every waiter that may start now, in arrival order. */
function pump(gate: Gate): void {
  for (let i = 0; i < gate.waiters.length;) {
    const w = gate.waiters[i]!;
    if (canStart(gate, w.pinned)) {
      gate.waiters.splice(i, 1);
      w.grant();
    } else i++;
  }
}

/** One install's hold on its endpoint's gate. Every method is idempotent. */
export interface InstallTicket {
  /** the server said which VMID it picked (or the pinned one) */
  vmidKnown(vmid: number): void;
  /** the VM exists on the server now (or the install ended before creating it): others may start */
  created(): void;
  /** the install and everything after it is over */
  finish(): void;
}

/** Every endpoint's gate in one process: one per ProcessScope. */
export class InstallGates {
  private readonly gates = new Map<string, Gate>();

  private gateOf(key: string): Gate {
    let gate = this.gates.get(key);
    if (!gate) {
      gate = { auto: null, pinned: new Map(), inFlight: new Map(), waiters: [] };
      this.gates.set(key, gate);
    }
    return gate;
  }

  /**
   * Waits until an install of this kind may start on this endpoint, then holds
   * the gate. `key` is the endpoint key (connection.endpointKey).
   */
  acquire(key: string, pinnedVmid: number | undefined, signal?: AbortSignal): Promise<InstallTicket> {
    const gate = this.gateOf(key);
    return new Promise<InstallTicket>((resolve, reject) => {
      const waiter: Waiter = {
        pinned: pinnedVmid,
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(takeSlot(gate, pinnedVmid));
        },
      };
      const onAbort = (): void => {
        const i = gate.waiters.indexOf(waiter);
        if (i >= 0) gate.waiters.splice(i, 1);
        reject(new LifecycleError("cancelled while waiting for another install on the same server to create its VM"));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      gate.waiters.push(waiter);
      pump(gate);
    });
  }

  /** VMIDs of installs in flight on this endpoint (to tell our own VMs from others'). */
  inFlight(key: string): Set<number> {
    return new Set(this.gateOf(key).inFlight.keys());
  }
}

function takeSlot(gate: Gate, pinned: number | undefined): InstallTicket {
  const mine: { vmid?: number } = {};
  let holding = true;
  let finished = false;
  let vmid: number | undefined;
  if (pinned === undefined) gate.auto = mine;
  else {
    bump(gate.pinned, pinned, 1);
    vmid = pinned;
    bump(gate.inFlight, pinned, 1);
  }
  const release = (): void => {
    if (!holding) return;
    holding = false;
    if (pinned === undefined) {
      if (gate.auto === mine) gate.auto = null;
    } else bump(gate.pinned, pinned, -1);
    pump(gate);
  };
  return {
    vmidKnown(id) {
      if (finished || vmid !== undefined) return;
      vmid = id;
      mine.vmid = id;
      bump(gate.inFlight, id, 1);
      pump(gate); // pinned installs of other VMIDs may go now
    },
    created: release,
    finish() {
      finished = true;
      release();
      if (vmid !== undefined) {
        bump(gate.inFlight, vmid, -1);
        vmid = undefined;
      }
    },
  };
}
