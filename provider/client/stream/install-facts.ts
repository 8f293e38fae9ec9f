// Facts an install stream reveals, read as soon as each appears, so a caller
// knows the VMID (and whether a VM exists) even when the stream fails later.
//
// The server never sends these as fields (the docs' vm_id/ip do not exist in
// the code); they live in the messages of a few known steps. Every message is
// checked with cheap character tests first: the facts are in `[+]`/`[*]` lines,
// while the bulk of an install is two-space-indented command output.
import type { StepEvent } from "../schemas";
import type { InstallFacts } from "./types";
import { COMPLETED_MESSAGE as COMPLETED, STEP } from "./wire";

// Steps that only run once `qm create` has succeeded: seeing any of them means a VM exists.
function isAfterCreation(step: string): boolean {
  return (
    step.startsWith("VM creation > importing") ||
    step.startsWith("VM initialization") ||
    step === "migrating" ||
    step === "SSH initialization"
  );
}

export class InstallFactsTracker {
  private readonly facts: InstallFacts = { vmCreated: false, completed: false };
  /** the `[*] VMID:` and `[*] IP:` lines of the final step, part of the completion mark */
  finalVmidSeen = false;
  finalIpSeen = false;

  constructor(
    private readonly requestName: string | undefined,
    private readonly onChange?: (facts: InstallFacts) => void,
  ) {}

  get completed(): boolean {
    return this.facts.completed;
  }

  /** A copy, safe to keep. */
  snapshot(): InstallFacts {
    return { ...this.facts };
  }

  observe(ev: StepEvent): void {
    let changed = false;
    const { step, status, message } = ev;

    if (!this.facts.vmCreated && ((step === STEP.creatingVm && status === "success") || isAfterCreation(step))) {
      this.facts.vmCreated = true;
      changed = true;
    }

    // "[+] ..." / "[*] ...": index 0 '[', index 2 ']'
    if (message.charCodeAt(0) === 91 && message.charCodeAt(2) === 93) {
      changed = this.readMessage(message) || changed;
    }
    if (changed) this.onChange?.(this.snapshot());
  }

  private readMessage(message: string): boolean {
    const f = this.facts;
    let m: RegExpExecArray | null;
    if ((m = /^\[\+\] auto-assigned VMID: (\d+)/.exec(message))) return this.setVmid(Number(m[1]), true);
    if ((m = /^\[\*\] using specified VMID: (\d+)/.exec(message))) return this.setVmid(Number(m[1]), false);
    if ((m = /^\[\*\] VMID: (\d+)\s*$/.exec(message))) {
      this.finalVmidSeen = true;
      return this.setVmid(Number(m[1]), f.autoAssigned);
    }
    if ((m = /^\[\+\] assigned IP: ([0-9.]+)(?:\/\d+)?/.exec(message))) return this.set("ip", m[1]!);
    if ((m = /^\[\*\] IP: ([0-9.]+)/.exec(message))) {
      this.finalIpSeen = true;
      return this.set("ip", m[1]!);
    }
    if ((m = /^\[\*\] User: (\S+)/.exec(message))) return this.set("user", m[1]!);
    if ((m = /^\[\*\] setting CPU to (?:maximum|minimum) (\d+)/.exec(message))) return this.set("cpu", Number(m[1]));
    if ((m = /^\[\*\] setting RAM to (?:maximum|minimum) (\d+)/.exec(message)))
      return this.set("memoryMb", Number(m[1]));
    if ((m = /^\[\*\] setting disk to (?:maximum|minimum) (\d+)G/.exec(message)))
      return this.set("diskGb", Number(m[1]));
    if (message.startsWith(COMPLETED)) {
      let changed = this.set("completed", true);
      if (!f.vmCreated) changed = this.set("vmCreated", true) || changed;
      return changed;
    }
    return false;
  }

  private setVmid(vmid: number, autoAssigned: boolean | undefined): boolean {
    let changed = this.set("vmid", vmid);
    if (autoAssigned !== undefined) changed = this.set("autoAssigned", autoAssigned) || changed;
    // The server names the VM `<name>-<vmid>`, or `<vmid>` without a name.
    const realName = this.requestName ? `${this.requestName}-${vmid}` : String(vmid);
    return this.set("realName", realName) || changed;
  }

  private set<K extends keyof InstallFacts>(key: K, value: InstallFacts[K]): boolean {
    if (this.facts[key] === value) return false;
    this.facts[key] = value;
    return true;
  }
}
