// One look at the VM as the decision tables take it: the install's
// (decideLost, decideFailure) and that of start, reboot and set/node (decideOperation).
// An observation reduced to what their rules tell apart; each
// table keeps its own rules for each kind. Pure: no server, no clock.
import type { Observation } from "./observe";

export type Look =
  /** the server could not be asked (the list failed); `refused`: nothing listened at the endpoint */
  | { kind: "unreadable"; error: string; refused?: boolean }
  | { kind: "absent" }
  /** its VMID is held by a VM with another name */
  | { kind: "other"; name: string }
  /** in the server's disabled list (node "-"): it lists no real values and may not be controlled */
  | { kind: "disabled" }
  /**
   * listed under its name. `running` is undefined when not known; `tagged`:
   * it carries an OS tag (the install sets it while initialising the VM)
   */
  | { kind: "present"; running?: boolean; node: string; tagged: boolean };

/** An observation as a Look. A failed observation is `{ kind: "unreadable" }`, made by the caller from the error. */
export function lookOf(observation: Observation): Look {
  if (!observation.listed || observation.entry === undefined) return { kind: "absent" };
  if (observation.disabled) return { kind: "disabled" };
  if (!observation.nameMatches) return { kind: "other", name: observation.entry.name };
  return {
    kind: "present",
    running: observation.running,
    node: observation.entry.node,
    tagged: observation.entry.os !== "",
  };
}

/** The VM is on the server under its name: present, or disabled (which lists it, with nothing real). */
export function exists(look: Look): look is Extract<Look, { kind: "present" | "disabled" }> {
  return look.kind === "present" || look.kind === "disabled";
}

/** The look shows the VM running (a disabled VM shows no power state: not running). */
export function runs(look: Look): boolean {
  return look.kind === "present" && look.running === true;
}
