// `qm migrate <vmid> <node> --with-local-disks`, as install and set/node run
// it: its output streamed raw under the step name `migrating` (processing),
// success or failure told only by the exit code. Refusals are what Proxmox
// says: an unknown node, or the node the VM is already on ("target is local
// node." - so install with `node` = the main node fails this way).
import type { Flow } from "./flow";
import {
  migrationAbortedLines,
  migrationLines,
  migrationRefusedLines,
  SSH_NO_HOST_LINE,
  type OutLine,
} from "./outputs";
import type { FaultRule } from "./fault-rules";

export async function migrate(
  flow: Flow,
  vmid: number,
  target: string,
  fault: FaultRule | undefined,
): Promise<boolean> {
  const { core, d } = flow;
  const vm = core.store.vms.get(vmid);
  const node = core.cfg.nodes.find((n) => n.name === target);
  const info = {
    vmid,
    target,
    targetIp: node?.ip ?? "",
    storage: core.cfg.storage,
    clockStart: core.cfg.clockStart,
    at: flow.elapsed,
    totalMs: d.migrate,
  };

  let lines: OutLine[];
  let ok = false;
  let ms = d.migrateRefused;
  if (!vm) {
    // No config anywhere: `ssh root@ qm migrate ...` with an empty host.
    lines = [{ text: SSH_NO_HOST_LINE, stderr: true }];
  } else if (!node) {
    lines = migrationRefusedLines("unknown", target);
  } else if (vm.node === target) {
    lines = migrationRefusedLines("local", target);
  } else if (fault) {
    ms = d.migrate / 3;
    lines = fault.output?.map((text) => ({ text })) ?? migrationAbortedLines({ ...info, totalMs: ms });
  } else {
    ms = d.migrate;
    lines = migrationLines(info);
    ok = true;
  }
  await flow.output("migrating", lines, ms);

  const after = core.store.vms.get(vmid);
  if (!ok || !after) return false;
  after.node = target;
  core.store.persist();
  core.log(`VM ${vmid} migrated to ${target}`);
  return true;
}
