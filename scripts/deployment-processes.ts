// The processes of one deployment (the language host, the program it runs,
// the provider), found while its `pulumi` runs and counted once it has ended,
// to show which of them outlive it. The engine starts each plugin in a process
// group of its own and the language host's program is in the host's group, so
// a deployment's processes are the process groups of `pulumi`'s children, plus
// any process whose arguments name the deployment's work folder (the program's
// do). Nothing is found by a process name, which other deployments share.
// Linux only: it reads /proc. Used by scripts/kill-matrix.ts and the e2e tests.
import * as fs from "node:fs";

interface DeploymentProcess {
  pid: number;
  args: string;
}

export interface DeploymentWatch {
  /** Every process of the deployment seen while `pulumi` ran. */
  seen(): DeploymentProcess[];
  /**
   * Stops watching, then waits up to `ms` for the deployment's processes to
   * end; answers those still alive then (none: it answers as soon as they are
   * gone).
   */
  leftoversAfter(ms: number): Promise<DeploymentProcess[]>;
}

interface ProcInfo extends DeploymentProcess {
  ppid: number;
  pgrp: number;
}

/** Watches the deployment of the `pulumi` process `pulumiPid`, run in `workDir`, every `everyMs`. */
export function watchDeployment(pulumiPid: number, workDir: string, everyMs = 100): DeploymentWatch {
  const groups = new Set<number>();
  const seen = new Map<number, DeploymentProcess>();
  const look = () => {
    const all = processes();
    for (const p of all) {
      // A child that leads its own group is a plugin; pulumi's own group counts only when it leads one (and so is not its caller's).
      if (p.ppid === pulumiPid && p.pgrp === p.pid) groups.add(p.pgrp);
      if (p.pid === pulumiPid && p.pgrp === p.pid) groups.add(p.pgrp);
    }
    for (const p of ofDeployment(all, groups, workDir)) if (p.pid !== pulumiPid) seen.set(p.pid, p);
  };
  look();
  // unref: a watch never left would otherwise keep its caller's process alive.
  const timer = setInterval(look, everyMs).unref();
  return {
    seen: () => [...seen.values()],
    leftoversAfter: async (ms) => {
      clearInterval(timer);
      const end = Date.now() + ms;
      for (;;) {
        const left = ofDeployment(processes(), groups, workDir);
        if (left.length === 0 || Date.now() >= end) return left;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

function ofDeployment(all: ProcInfo[], groups: Set<number>, workDir: string): DeploymentProcess[] {
  return all.filter((p) => groups.has(p.pgrp) || p.args.includes(workDir)).map(({ pid, args }) => ({ pid, args }));
}

/** Every live process, from /proc (zombies excluded: they have ended, only their parent has not reaped them yet). */
function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // After the command's closing parenthesis: state, ppid, pgrp, ...
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z") continue;
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      out.push({ pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp), args });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
