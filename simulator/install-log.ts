// When each install flow began and ended on the server, by the real clock:
// what a client's verdict can be timed against. It lives as long as the
// simulator handle, across restarts, because a restart is what cuts an
// install short and that record must survive it.
import type { Outcome } from "./install-job";

export interface InstallRecord {
  /** The requested or assigned VMID; null while (or when never) known. */
  vmid: number | null;
  /** The name given to install ("" when none). */
  requestedName: string;
  /** The login password the install gives the VM (`qm set --cipassword`), the server's default applied. */
  cipassword: string;
  /** Date.now() when the flow began (after the request was bound). */
  startedAt: number;
  /** Date.now() when the server's flow ended (before its `event: close`); null while it runs. */
  endedAt: number | null;
  /** How it ended: the counters' outcomes, or `cut-short` when the process died first; null while it runs. */
  outcome: Outcome | "cut-short" | null;
}

interface Entry {
  vmid: () => number;
  requestedName: string;
  cipassword: () => string;
  startedAt: number;
  endedAt: number | null;
  outcome: InstallRecord["outcome"];
}

export class InstallLog {
  private readonly entries: Entry[] = [];

  /** A flow begins; `vmid` reads its VMID (0 = not known yet), `cipassword` its password. Returns how to end it. */
  begin(requestedName: string, vmid: () => number, cipassword: () => string): (outcome: Outcome | "cut-short") => void {
    const entry: Entry = { vmid, requestedName, cipassword, startedAt: Date.now(), endedAt: null, outcome: null };
    this.entries.push(entry);
    return (outcome) => {
      if (entry.outcome !== null) return;
      entry.endedAt = Date.now();
      entry.outcome = outcome;
    };
  }

  list(): InstallRecord[] {
    return this.entries.map((e) => {
      const vmid = e.vmid();
      return {
        vmid: vmid === 0 ? null : vmid,
        requestedName: e.requestedName,
        cipassword: e.cipassword(),
        startedAt: e.startedAt,
        endedAt: e.endedAt,
        outcome: e.outcome,
      };
    });
  }
}
