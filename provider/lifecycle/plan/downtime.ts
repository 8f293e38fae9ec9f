// What preview says of an update that takes a running VM down. The server
// refuses set/cpu, set/memory, set/disk and set/node while the VM runs, so
// such an update is a shutdown, the changes, and a start (planUpdate); a
// changed rebootTriggers is a reboot. The diff shows only `~ cpu: 2 => 4`.
// One sentence per VM names the changes, the steps, and that the VM is down
// meanwhile. A value not known until the deployment counts as a change: the
// shutdown may come.
import { CODES, LifecycleError, UNKNOWN, containsUnknown, currentDisk, isUnknown, nodeChange } from "../model";
import { sizeChange, targetRunning, triggersChanged } from "../model";
import type { VmInputs, VmState } from "../model";
import { vmLabel } from "../core";

/** A VM the update takes down. */
export interface Downtime {
  /** what preview says */
  sentence: string;
  /** it comes back within the update (a start, or a reboot): downtime as a side effect, not asked for with running: false */
  comesBack: boolean;
  /** the changes that cause it, e.g. `cpu 2 -> 4` */
  causes: string[];
}

interface Change {
  /** `cpu 2 -> 4` */
  said: string;
  /** the update's step for it */
  step: string;
}

/** The downtime of an update of `old` to `news`, or undefined when the VM stays up. */
export function downtimeOf(old: VmState, news: VmInputs): Downtime | undefined {
  // A VM on record as stopped is not shut down; an unknown power state counts as running, as in planUpdate.
  if (old.running === false) return undefined;
  const label = vmLabel(old.vmid, old.vmName);
  const changes = configChanges(old, news);
  if (changes.length === 0) return rebootOf(old, news, label);
  const restart = isUnknown(news.running) ? "start, unless running is false" : targetRunning(news.running) && "start";
  const steps = ["shutdown", ...changes.map((c) => c.step), ...(restart ? [restart] : [])];
  const after = restart ? "it is down meanwhile" : "it stays stopped (running: false)";
  const causes = changes.map((c) => c.said);
  return {
    sentence: `VM ${label} will be shut down for: ${causes.join(", ")} (${steps.join(", ")}); ${after}`,
    comesBack: restart !== false,
    causes,
  };
}

/** A running VM whose rebootTriggers changed is rebooted. */
function rebootOf(old: VmState, news: VmInputs, label: string): Downtime | undefined {
  if (!isUnknown(news.running) && !targetRunning(news.running)) return undefined;
  if (!containsUnknown(news.rebootTriggers) && !triggersChanged(old, news.rebootTriggers)) return undefined;
  return {
    sentence: `VM ${label} will be rebooted: rebootTriggers changed; it is down until it answers again`,
    comesBack: true,
    causes: ["rebootTriggers changed"],
  };
}

/**
 * allowDowntime: false, and the update would take the running VM down (and
 * bring it back): refused before anything reaches the server. Asking for
 * running: false is not refused: that downtime is what was asked for.
 */
export function refuseDowntime(label: string, causes: string[]): LifecycleError {
  return new LifecycleError(
    `VM ${label}: allowDowntime is false, and this update would take it down (${causes.join(", ")}); nothing was changed. ` +
      "Ways out: set allowDowntime: true for this deployment (and back to false after it), " +
      "or make the change through a replace (`pulumi up --replace <this resource's URN>`), which makes a new VM instead of changing this one",
    { code: CODES.downtimeRefused },
  );
}

/** The changes the server refuses while the VM runs, in the update's order. */
function configChanges(old: VmState, news: VmInputs): Change[] {
  const out: Change[] = [];
  const cpu = isUnknown(news.cpu) ? UNKNOWN : sizeChange(old, "cpu", news.cpu);
  if (cpu !== undefined) out.push({ said: `cpu ${old.cpu ?? "?"} -> ${cpu}`, step: "set cpu" });
  const memory = isUnknown(news.memoryMb) ? UNKNOWN : sizeChange(old, "memoryMb", news.memoryMb);
  if (memory !== undefined) out.push({ said: `memory ${old.memoryMb ?? "?"} -> ${memory} MB`, step: "set memory" });
  const from = currentDisk(old);
  const disk = isUnknown(news.diskGb) ? UNKNOWN : sizeChange(old, "diskGb", news.diskGb);
  if (disk !== undefined && (typeof disk === "string" || disk > from))
    out.push({ said: `disk ${from} -> ${disk} GiB`, step: "grow disk" });
  const node = isUnknown(news.node) ? UNKNOWN : nodeChange(old, news.node);
  if (node !== undefined) out.push({ said: `node ${old.node ?? "?"} -> ${node}`, step: "migrate" });
  return out;
}
