// Turning the server's stream into progress lines for the user. The install
// has a known sequence of steps (listed once, here), so its lines say
// "step k of n". Step results (success / info / error) are info lines with
// the server's `(N.NNs)` duration; the first line of each step says it began;
// other processing lines and raw command output are debug lines. Everything
// is redacted (the init script's output could echo secrets).
import type { OperationEvent } from "../client/stream/types";
import type { Reporter } from "./context";
import type { Redactor } from "./redact";

export interface InstallStep {
  /** the server's step name */
  name: string;
  /** other step names that belong to the same step (alternatives, sub-steps, output) */
  aliases?: readonly string[];
  /** only present when the install was asked to place the VM on a node */
  onlyWithNode?: boolean;
}

/** The install's steps, in the server's order (go-pve-qemu service/install.go). */
export const INSTALL_STEPS: readonly InstallStep[] = [
  { name: "preparation > checking VMID" },
  { name: "preparation > assigning IP" },
  { name: "preparation > validating CPU and RAM" },
  { name: "preparation > validating disk size" },
  { name: "preparation > setting default config values" },
  { name: "preparation > checking storage pool" },
  { name: "OS preparation > getting OS image" },
  { name: "OS preparation > validating OS image URL" },
  { name: "OS preparation > downloading OS image", aliases: ["OS preparation > using OS image"] },
  { name: "SSH preparation > checking SSH key", aliases: ["SSH preparation > creating SSH key"] },
  { name: "VM creation > creating VM" },
  { name: "VM creation > importing disk image" },
  { name: "VM initialization > initializing configuration" },
  { name: "VM initialization > migrating VM", aliases: ["migrating"], onlyWithNode: true },
  { name: "VM initialization > waiting for ready" },
  { name: "VM initialization > SSH initialization", aliases: ["SSH initialization"] },
  { name: "VM initialization > rebooting VM" },
  { name: "VM initialization > finalizing" },
];

/** The step whose "no key pair" error the server recovers from. */
export const SSH_KEY_STEP = "SSH preparation > checking SSH key";
/** Where a fresh server makes its SSH key pair (on its first install). */
export const SSH_KEY_CREATE_STEP = "SSH preparation > creating SSH key";

/** The step after which the VMID is taken on the server. */
export const CREATING_VM_STEP = "VM creation > creating VM";

/** The steps of one install (the migration step only when a node was given). */
export function installSteps(withNode: boolean): InstallStep[] {
  return INSTALL_STEPS.filter((s) => withNode || !s.onlyWithNode);
}

const DURATION = /\s*\((\d+(?:\.\d+)?s)\)\s*$/;
const PREFIX = /^\s*\[[-+*]\]\s*/;

/** "[+] assigned IP: 10.0.0.101/24 (0.00s)" -> { text: "assigned IP: 10.0.0.101/24", duration: "(0.00s)" } */
export function splitMessage(message: string): { text: string; duration?: string } {
  const m = DURATION.exec(message);
  const withoutDuration = m ? message.slice(0, m.index) : message;
  return { text: withoutDuration.replace(PREFIX, "").trim(), duration: m ? `(${m[1]})` : undefined };
}

/** onEvent for an install: reports step k of n as events arrive. */
export function installProgress(
  reporter: Reporter,
  redact: Redactor,
  withNode: boolean,
): (event: OperationEvent) => void {
  const steps = installSteps(withNode);
  const n = steps.length;
  const indexOf = (name: string): number => steps.findIndex((s) => s.name === name || s.aliases?.includes(name));
  let current = -1;
  const begun = new Set<number>();
  const where = (): string => (current >= 0 ? `[${current + 1}/${n}] ${steps[current]?.name}` : "[start]");

  return guarded((event) => {
    switch (event.kind) {
      case "step": {
        const idx = event.step === "" ? -1 : indexOf(event.step);
        if (idx >= 0) current = idx;
        const label = idx >= 0 || event.step === "" ? where() : `${where()} (${event.step})`;
        const { text, duration } = splitMessage(redact(event.message));
        if (event.status === "processing") {
          if (idx >= 0 && !begun.has(idx)) {
            begun.add(idx);
            reporter.info(`install ${label}: ${text}`);
          } else reporter.debug(`install ${label}: ${text}`);
          return;
        }
        if (idx >= 0) begun.add(idx);
        const line = `install ${label}: ${event.status}${duration ? ` ${duration}` : ""}${text ? ` - ${text}` : ""}`;
        if (event.status === "error") reporter.warn(line);
        else reporter.info(line);
        return;
      }
      case "raw":
        reporter.debug(`install ${where()} | ${redact(event.text)}`);
        return;
      case "bare":
        reporter.warn(`install: the server refused: ${redact(event.message)}`);
        return;
      case "close":
        reporter.debug("install: stream closed");
        return;
      case "other":
        reporter.debug(`install: (${event.event})`);
        return;
    }
  });
}

/** A reporter that throws must not break the stream it reports on: progress is best effort. */
function guarded(fn: (event: OperationEvent) => void): (event: OperationEvent) => void {
  return (event) => {
    try {
      fn(event);
    } catch {
      /* ignored */
    }
  };
}

/** onEvent for start / reboot / migrate: same levels, no step count. */
export function streamProgress(
  operation: string,
  reporter: Reporter,
  redact: Redactor,
): (event: OperationEvent) => void {
  return guarded((event) => {
    switch (event.kind) {
      case "step": {
        const { text, duration } = splitMessage(redact(event.message));
        const line = `${operation} ${event.step}: ${event.status}${duration ? ` ${duration}` : ""}${text ? ` - ${text}` : ""}`;
        if (event.status === "processing") reporter.debug(line);
        else if (event.status === "error") reporter.warn(line);
        else reporter.info(line);
        return;
      }
      case "raw":
        reporter.debug(`${operation} | ${redact(event.text)}`);
        return;
      case "bare":
        reporter.warn(`${operation}: the server refused: ${redact(event.message)}`);
        return;
      default:
        return;
    }
  });
}
