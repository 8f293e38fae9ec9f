// The plain (non-streamed) endpoints: health, list, status, and the per-VM
// actions answering text `ok` - stop, shutdown, destroy, set/cpu, set/memory,
// set/disk - with the server's refusal texts and statuses.
import type { SimCore } from "./core";
import { bindJson, CPU_BODY, DISK_BODY, MEMORY_BODY, type StructSpec } from "./gobind";
import { goJson } from "./gojson";
import { checkId, ipAllowed, parseVmid } from "./guards";
import { sendJson, sendText, type Ctx } from "./http";
import { buildList } from "./list";
import { lockTimeout, POWERDOWN_TIMEOUT, RESIZE_BAD_SIZE, SSH_NO_HOST } from "./outputs";
import type { FaultRule, Op } from "./fault-rules";
import { GIB } from "./state";

export function handleHealth(ctx: Ctx): void {
  sendText(ctx, 200, "ok");
}

function fault(core: SimCore, op: Op, step: string, vmid?: number): FaultRule | undefined {
  const vm = vmid === undefined ? undefined : core.store.vms.get(vmid);
  const names = vm ? [vm.name, vm.requestedName].filter((n) => n !== "") : [];
  return core.faults.take({ op, step, vmid, names }, ["fail"]);
}

export async function handleList(core: SimCore, ctx: Ctx): Promise<void> {
  await core.clock.sleep(core.cfg.durations.pveshList);
  if (fault(core, "list", "vm map") || core.store.disabled === null) {
    sendText(ctx, 500, "failed to get VM Map\n");
    return;
  }
  if (fault(core, "list", "node map")) {
    sendText(ctx, 500, "failed to get Node Map\n");
    return;
  }
  sendJson(ctx, 200, buildList(core, ctx.query.get("disable") ?? ""));
}

export async function handleStatus(core: SimCore, ctx: Ctx, rawId: string): Promise<void> {
  const vmid = parseVmid(rawId);
  if (vmid === null) {
    sendJson(ctx, 400, goJson({ error: "invalid VM ID" }));
    return;
  }
  await core.clock.sleep(core.cfg.durations.qmStatus);
  const f = fault(core, "status", "status", vmid);
  const vm = core.store.vms.get(vmid);
  // `qm status` runs on the main node; real Proxmox only knows its own VMs there.
  const visible = vm !== undefined && (!core.cfg.statusLocalOnly || vm.node === core.cfg.mainNode);
  if (f || !visible) {
    // exec's error text only: qm's stderr is not part of it. No config on
    // this node (none at all, or the VM is on another node) is exit status 2.
    sendText(ctx, 500, `failed to get VM status: ${f?.detail ?? (visible ? "exit status 255" : "exit status 2")}`);
    return;
  }
  sendText(ctx, 200, vm.status);
}

interface Action {
  op: Op;
  /** The text when the :id does not parse (the server's copy-paste included). */
  badId: string;
  /** CheckID's argument: true = the VM must be stopped. */
  refuseRunning: boolean;
  body?: StructSpec;
  /** The handler's prefix before the service error, and the service's own. */
  prefix: string;
  durationKey: keyof SimCore["cfg"]["durations"];
  /** Applies the change; returns an error detail to report instead. */
  apply: (core: SimCore, vmid: number, body: Record<string, string | number>) => string | null | Promise<null>;
}

const ACTIONS: Record<string, Action> = {
  stop: {
    op: "stop",
    badId: "failed to stop VM\n",
    refuseRunning: false,
    prefix: "failed to stop VM: [-] failed to stop VM: ",
    durationKey: "qmStop",
    apply: (core, vmid) => {
      core.cancelStop(vmid);
      core.store.patchVm(vmid, { status: "stopped" });
      return null;
    },
  },
  shutdown: {
    op: "shutdown",
    badId: "failed to shutdown VM\n",
    refuseRunning: false,
    prefix: "failed to shutdown VM: [-] failed to shutdown VM: ",
    durationKey: "qmShutdown",
    // qm shutdown returns only once the guest is off: `ok` means stopped.
    apply: async (core, vmid) => {
      await core.shutdownGuest(vmid);
      return null;
    },
  },
  destroy: {
    op: "destroy",
    badId: "failed to destroy VM\n",
    refuseRunning: true,
    prefix: "failed to destroy VM: failed to destroy VM: ",
    durationKey: "qmDestroy",
    apply: (core, vmid) => {
      core.cancelStop(vmid);
      core.store.removeVm(vmid);
      return null;
    },
  },
  "set/cpu": {
    op: "setCpu",
    badId: "failed to destroy VM\n",
    refuseRunning: true,
    body: CPU_BODY,
    prefix: "failed to edit CPU: [-] failed to set CPU: ",
    durationKey: "qmSet",
    apply: (core, vmid, body) => {
      core.store.patchVm(vmid, { cpu: body.cpu as number });
      return null;
    },
  },
  "set/memory": {
    op: "setMemory",
    badId: "failed to destroy VM\n",
    refuseRunning: true,
    body: MEMORY_BODY,
    prefix: "failed to edit memory: [-] failed to set memory: ",
    durationKey: "qmSet",
    apply: (core, vmid, body) => {
      core.store.patchVm(vmid, { memoryMb: body.memory as number });
      return null;
    },
  },
  "set/disk": {
    op: "setDisk",
    badId: "failed to destroy VM\n",
    refuseRunning: true,
    body: DISK_BODY,
    prefix: "failed to append disk: failed to append disk: ",
    durationKey: "qmResize",
    apply: (core, vmid, body) => {
      // The server sends `qm disk resize <id> scsi0 +<disk>`: growth by that much.
      const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(String(body.disk));
      if (!m) return RESIZE_BAD_SIZE;
      const unit = { "": 1, K: 1024, M: 1024 ** 2, G: GIB, T: 1024 * GIB }[m[2] as "" | "K" | "M" | "G" | "T"];
      const vm = core.store.vms.get(vmid);
      if (vm) core.store.patchVm(vmid, { diskBytes: vm.diskBytes + Math.round(Number(m[1]) * unit) });
      return null;
    },
  },
};

/**
 * What a failing qm call reports. A failing shutdown with `ms` is a guest
 * that ignores the power button: qm waits that much longer, then gives up -
 * unless the guest goes off another way meanwhile (a hard stop), when qm
 * shutdown sees it off and succeeds.
 */
async function failure(core: SimCore, f: FaultRule, vmid: number): Promise<string | null> {
  if (f.ms === undefined) return f.detail ?? lockTimeout(vmid);
  if (await core.waitForGuest(vmid, f.ms)) return null;
  return f.detail ?? POWERDOWN_TIMEOUT;
}

export function actionOp(path: string): Op | undefined {
  return ACTIONS[path]?.op;
}

export async function handleAction(core: SimCore, ctx: Ctx, rawId: string, path: string): Promise<void> {
  const a = ACTIONS[path];
  if (!a) throw new Error(`no action ${path}`);
  if (!ipAllowed(core, ctx.clientIp)) {
    sendText(ctx, 403, "this IP is not allowed to perform this action\n");
    return;
  }
  const vmid = parseVmid(rawId);
  if (vmid === null) {
    sendText(ctx, 500, a.badId);
    return;
  }
  const refusal = checkId(core, vmid, a.refuseRunning);
  if (refusal) {
    sendText(ctx, refusal.status, refusal.message);
    return;
  }
  let body: Record<string, string | number> = {};
  if (a.body) {
    const bound = bindJson(a.body, ctx.body);
    if (!bound.ok) {
      sendText(ctx, 400, `invalid request body: ${bound.error}`);
      return;
    }
    body = bound.value;
  }
  await core.clock.sleep(core.cfg.durations[a.durationKey]);
  const f = fault(core, a.op, a.op, vmid);
  let detail: string | null;
  if (f) detail = await failure(core, f, vmid);
  else if (!core.store.vms.has(vmid)) detail = SSH_NO_HOST;
  else detail = await a.apply(core, vmid, body);
  if (detail !== null) {
    sendText(ctx, 500, `${a.prefix}${detail}\n`);
    return;
  }
  core.log(`${a.op} ${vmid}: ok`);
  sendText(ctx, 200, "ok");
}
