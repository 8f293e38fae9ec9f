// The streamed per-VM operations: start, reboot and set/node. Their handlers
// refuse with one bare `data: {"message": ...}` line and no close (IP, bad
// VMID, power state, failed qm start/reboot/migrate); otherwise the service
// streams its steps and the handler ends with `event: close`.
import { seconds } from "./clock";
import type { SimCore } from "./core";
import { Flow, OperationStopped } from "./flow";
import { bindJson, NODE_BODY } from "./gobind";
import { checkId, ipAllowed, osUser, parseVmid } from "./guards";
import { corsHeaders, goOrder, TEXT, type Ctx } from "./http";
import { rebootReadyMs, waitForSsh } from "./install-vm";
import { migrate } from "./migrate";
import { lockTimeout, SSH_NO_HOST } from "./outputs";
import { bareFrame, EventStream } from "./sse";

const SSH_TIMEOUT = "[-] failed to connect to VM via SSH: [-] SSH timeout";

/** What a service returned: nothing (handler closes) or an error the handler reports bare. */
type Result = { bare?: string };

function namesOf(core: SimCore, vmid: number): string[] {
  const vm = core.store.vms.get(vmid);
  return vm ? [vm.name, vm.requestedName].filter((n) => n !== "") : [];
}

/** Runs a service on an open stream, then ends the response the way the handler does. */
async function serve(core: SimCore, flow: Flow, service: () => Promise<Result>): Promise<void> {
  const work = (async () => {
    const result = await service();
    if (result.bare !== undefined) {
      flow.stream.bareAndEnd(result.bare);
      return;
    }
    await flow.enter("close");
    flow.stream.close();
  })().catch((err: unknown) => {
    // An error frame ended the operation and its response: nothing more is done.
    if (!(err instanceof OperationStopped)) throw err;
  });
  core.track(work);
  await work.catch(() => undefined);
}

export async function handleStartOrReboot(
  core: SimCore,
  ctx: Ctx,
  rawId: string,
  op: "start" | "reboot",
): Promise<void> {
  const stream = new EventStream(ctx, (destroy) => core.holdOpen(destroy));
  const start = op === "start";
  if (!ipAllowed(core, ctx.clientIp)) {
    stream.bareAndEnd(
      start ? "this IP is not allowed to perform this action" : "[-] this IP is not allowed to perform this action",
    );
    return;
  }
  const vmid = parseVmid(rawId);
  if (vmid === null) {
    stream.bareAndEnd(start ? "failed to start VM" : "[-] failed to reboot VM");
    return;
  }
  const refusal = checkId(core, vmid, start);
  if (refusal) {
    stream.bareAndEnd(refusal.message);
    return;
  }
  stream.open();
  const flow = new Flow(core, stream, op, vmid, namesOf(core, vmid));
  await serve(core, flow, () => (start ? runStart(flow, vmid) : runReboot(flow, vmid)));
}

async function runStart(flow: Flow, vmid: number): Promise<Result> {
  const { core, d } = flow;
  flow.startStep();
  await flow.enter("starting VM");
  await flow.spend(d.qmStart);
  const fault = flow.failing("starting VM");
  const vm = core.store.vms.get(vmid);
  if (fault || !vm) {
    const detail = fault?.detail ?? (vm ? lockTimeout(vmid) : SSH_NO_HOST);
    return { bare: `failed to start VM: [-] failed to start VM: ${detail}` };
  }
  core.cancelStop(vmid);
  core.store.setPower(vm, "running");
  flow.emit("starting VM", "success", `[+] VM starting (${seconds(flow.since())}s)`);
  return finishBoot(flow, vmid, d.bootToSsh, "failed to start VM: ", "[+] VM started successfully");
}

async function runReboot(flow: Flow, vmid: number): Promise<Result> {
  const { core, d } = flow;
  flow.startStep();
  await flow.enter("rebooting VM");
  await flow.spend(d.qmReboot);
  const fault = flow.failing("rebooting VM");
  const vm = core.store.vms.get(vmid);
  if (fault || !vm) {
    const detail = fault?.detail ?? (vm ? lockTimeout(vmid) : SSH_NO_HOST);
    return { bare: `[-] failed to reboot VM: [-] failed to reboot VM: ${detail}` };
  }
  core.cancelStop(vmid);
  // The guest is off now; Proxmox starts it again a moment later.
  core.reboots.begin(vmid);
  flow.emit("rebooting VM", "success", `[+] VM rebooting (${seconds(flow.since())}s)`);
  return finishBoot(flow, vmid, rebootReadyMs(flow), "[-] failed to reboot VM: ", "[+] VM rebooted successfully");
}

/** `waiting for SSH`, the 5 s pause, `finalizing` info. */
async function finishBoot(
  flow: Flow,
  vmid: number,
  readyMs: number,
  barePrefix: string,
  done: string,
): Promise<Result> {
  flow.startStep();
  const step = "waiting for SSH";
  await flow.enter(step);
  const user = osUser(flow.core, vmid);
  if ("error" in user) {
    const message = `[-] failed to get VM list: ${user.error}`;
    flow.emit(step, "error", message);
    return { bare: barePrefix + message };
  }
  if (!(await waitForSsh(flow, vmid, readyMs, flow.failing(step) !== undefined))) {
    flow.emit(step, "error", SSH_TIMEOUT);
    return {};
  }
  flow.emit(step, "success", `[+] VM is ready (${seconds(flow.since())}s)`);
  await flow.enter("finalizing");
  await flow.spend(flow.d.finalizePause);
  flow.emit("finalizing", "info", done);
  return {};
}

export async function handleSetNode(core: SimCore, ctx: Ctx, rawId: string): Promise<void> {
  const stream = new EventStream(ctx, (destroy) => core.holdOpen(destroy));
  if (!ipAllowed(core, ctx.clientIp)) {
    stream.bareAndEnd("[-] this IP is not allowed to perform this action");
    return;
  }
  const vmid = parseVmid(rawId);
  if (vmid === null) {
    // sic: the server's set/node handler reuses reboot's text.
    stream.bareAndEnd("[-] failed to reboot VM");
    return;
  }
  const refusal = checkId(core, vmid, true);
  if (refusal) {
    stream.bareAndEnd(refusal.message);
    return;
  }
  const bound = bindJson(NODE_BODY, ctx.body);
  if (!bound.ok) {
    // c.String(400, ...) and then an SSE-style line into the same body.
    // c.String(400, ...), an SSE-style line, Flush: one chunk (the flush makes it chunked).
    const text = `invalid request body: ${bound.error}` + bareFrame(`[-] invalid request body: ${bound.error}`);
    ctx.res.writeHead(400, goOrder({ ...corsHeaders(ctx), "Content-Type": TEXT }));
    ctx.res.end(text);
    return;
  }
  const target = bound.value.node as string;
  stream.open();
  const flow = new Flow(core, stream, "setNode", vmid, namesOf(core, vmid));
  await serve(core, flow, async () => {
    await flow.enter("migrating");
    const fault = flow.failing("migrating");
    if (await migrate(flow, vmid, target, fault)) return {};
    return { bare: `[-] failed to migrate VM: [-] failed to perform migrate: ${fault?.detail ?? "exit status 255"}` };
  });
}
