// Turning the server's stream into progress lines for the user. The install
// has a known sequence of steps (listed once, in the wire module), so its lines say
// "step k of n". Step results (success / info / error) are info lines with
// the server's `(N.NNs)` duration; the first line of each step says it began;
// other processing lines and raw command output are debug lines. Everything
// is redacted (the init script's output could echo secrets), and no line is
// longer than MAX_LINE_CHARS (a 2 MB output line is cut and the cut counted).
import type { OperationEvent, StepOperationEvent, InstallStep } from "../../client";
import { INSTALL_STEPS, STEP, SSH_KEY_MISSING, isRecoverableSshKeyError } from "../../client";
import type { Reporter } from "./context";
import type { Redactor } from "./redact";

/** The longest line one event may put in the log; the rest is cut and counted. */
const MAX_LINE_CHARS = 4096;

/** A line cut to MAX_LINE_CHARS, saying how much was cut. */
function capLine(text: string, max = MAX_LINE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters not shown]` : text;
}

/** The steps of one install (the migration step only when a node was given). */
function installSteps(withNode: boolean): InstallStep[] {
  return INSTALL_STEPS.filter((s) => withNode || !s.onlyWithNode);
}

const DURATION = /\s*\((\d+(?:\.\d+)?s)\)\s*$/;
const PREFIX = /^\s*\[[-+*]\]\s*/;

/** "[+] assigned IP: 10.0.0.101/24 (0.00s)" -> { text: "assigned IP: 10.0.0.101/24", duration: "(0.00s)" } */
function splitMessage(message: string): { text: string; duration?: string } {
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
  const clean = (text: string): string => capLine(redact(text));
  const steps = new StepCounter(installSteps(withNode));
  let sshKeyMissing = false;
  const onStep = (event: StepOperationEvent): void => {
    const { idx, label } = steps.at(event.step);
    const { text, duration } = splitMessage(clean(event.message));
    if (event.status === "error" && isRecoverableSshKeyError(event.step, event.message)) {
      // Not a failure yet: the server goes on to create a key pair (said once it has).
      sshKeyMissing = true;
      reporter.debug(`install ${label}: ${text}`);
      return;
    }
    if (sshKeyMissing && event.step === STEP.sshKeyCreate && event.status === "success") {
      sshKeyMissing = false;
      reporter.warn(
        `install ${label}: recovered - the server had no SSH key pair ("${SSH_KEY_MISSING}") and created one`,
      );
    }
    if (event.status === "processing") {
      if (steps.begin(idx)) reporter.info(`install ${label}: ${text}`);
      else reporter.debug(`install ${label}: ${text}`);
      return;
    }
    steps.begin(idx);
    const line = `install ${label}: ${event.status}${duration ? ` ${duration}` : ""}${text ? ` - ${text}` : ""}`;
    if (event.status === "error") reporter.warn(line);
    else reporter.info(line);
  };
  return guarded((event) => {
    switch (event.kind) {
      case "step":
        return onStep(event);
      case "raw":
        return reporter.debug(`install ${steps.where()} | ${clean(event.text)}`);
      case "bare":
        return reporter.warn(`install: the server refused: ${clean(event.message)}`);
      case "close":
        return reporter.debug("install: stream closed");
      case "other":
        return reporter.debug(`install: (${event.event})`);
    }
  });
}

/** Which of the n steps the install is at, for "[k/n] name" labels. */
class StepCounter {
  private current = -1;
  private readonly begun = new Set<number>();
  constructor(private readonly steps: InstallStep[]) {}

  where(): string {
    return this.current >= 0
      ? `[${this.current + 1}/${this.steps.length}] ${this.steps[this.current]?.name}`
      : "[start]";
  }

  /** The step's index (-1 when unknown) and its label; a known step becomes the current one. */
  at(step: string): { idx: number; label: string } {
    const idx = step === "" ? -1 : this.steps.findIndex((s) => s.name === step || s.aliases?.includes(step));
    if (idx >= 0) this.current = idx;
    return { idx, label: idx >= 0 || step === "" ? this.where() : `${this.where()} (${step})` };
  }

  /** Marks the step begun; true the first time. */
  begin(idx: number): boolean {
    if (idx < 0 || this.begun.has(idx)) return false;
    this.begun.add(idx);
    return true;
  }
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
        const { text, duration } = splitMessage(capLine(redact(event.message)));
        const line = `${operation} ${event.step}: ${event.status}${duration ? ` ${duration}` : ""}${text ? ` - ${text}` : ""}`;
        if (event.status === "processing") reporter.debug(line);
        else if (event.status === "error") reporter.warn(line);
        else reporter.info(line);
        return;
      }
      case "raw":
        reporter.debug(`${operation} | ${capLine(redact(event.text))}`);
        return;
      case "bare":
        reporter.warn(`${operation}: the server refused: ${capLine(redact(event.message))}`);
        return;
      default:
        return;
    }
  });
}
