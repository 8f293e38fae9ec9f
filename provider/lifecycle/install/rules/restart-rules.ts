// Decision table: did the server restart mid-install, and what is left then.
//   decides: restartVerdict, asked first by decideLost.
//   inputs:  the install's timeline, one Look now, what the follow remembers
//            (seen, rebooted, restartedAt: FollowMemory).
//   answers: RestartVerdict (failed: nothing made; partial, failed: a
//            half-made VM kept), or undefined: no restart is shown, the
//            other rules of the follow decide.
//
// go-pve-qemu runs each install in the process that serves its request, so
// a process that died took its installs with it, and the VMs they had made
// stay as they were. The evidence is the follow's own (a
// refused connection right after the stream's connection ended, before the
// server answered anything: InstallWatch); behind a proxy the refusal is the
// proxy's, and a server's restart shows as 5xx answers, which are no
// evidence.
import { phaseIndex } from "../../../client";
import { exists } from "../../observe";
import type { Look } from "../../observe";
import type { LostInstall } from "../../model";
import type { LostVerdict } from "./verdicts";

/** What a restart settles: a plain failure (nothing made), or a VM kept as a failed install. */
export type RestartVerdict =
  Extract<LostVerdict, { kind: "failed" }> | (Extract<LostVerdict, { kind: "partial" }> & { installState: "failed" });

const RESTARTED =
  "the server restarted mid-install (its listener refused connections right after the stream's connection ended, before it answered anything)";

/**
 * The server's process died with the install unfinished: nothing will make,
 * start, initialise or clean up its VM any more, so what it shows once the
 * server answers again is final: a VM it shows is a half-made one, kept as
 * a failed install for the next up to replace.
 */
export function restartVerdict(
  t: LostInstall,
  look: Look,
  mem: { seen: boolean; rebooted?: boolean; restartedAt?: number },
): RestartVerdict | undefined {
  // Past its SSH initialisation the VM is initialised, and a reboot's stop is ended by Proxmox, not the server.
  if (mem.restartedAt === undefined || mem.rebooted === true || phaseIndex(t.phase) > phaseIndex("sshInit"))
    return undefined;
  if (look.kind === "absent" && !mem.seen) return { kind: "failed", why: `${RESTARTED}, before it made the VM` };
  if (!exists(look)) return undefined;
  return {
    kind: "partial",
    installState: "failed",
    why: `${RESTARTED}: nothing drives the install any more, and the VM stays half-made`,
  };
}
