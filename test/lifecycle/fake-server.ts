// An in-memory stand-in for go-pve-qemu for unit tests of the power and
// update logic, on a virtual clock (clock.ts): it answers the way the real
// server does (preconditions, node-local `status`, blocking `shutdown`) and
// can be told to misbehave one call at a time. Every call is logged with the
// virtual time it was made at.
import type { GoPveQemuApi, RequestOptions, StreamOptions } from "../../provider/client/api";
import { CancelledError, HttpStatusError, OperationFailedError } from "../../provider/client/errors";
import type { VmEntry } from "../../provider/client/schemas";
import type { FailureShape, OperationKind, OperationSuccess } from "../../provider/client/stream/types";
import type { VirtualClock } from "./clock";

interface FakeVm {
  vmid: number;
  name: string;
  node: string;
  running: boolean;
  cpu: number;
  memoryMb: number;
  diskGb: number;
  os?: string;
}

/** How `shutdown` behaves. */
type ShutdownMode =
  /** the real server: answers `ok` once the guest is off, `takesMs` later */
  | { mode: "blocking"; takesMs: number }
  /** older servers / proxies: `ok` at once, the guest is off `takesMs` later */
  | { mode: "immediate"; takesMs: number }
  /** the guest ignores it: no answer until aborted, the VM keeps running */
  | { mode: "hang" }
  /** an error answer after `afterMs`; the VM keeps running */
  | { mode: "error"; status: number; message: string; afterMs?: number };

/** A streamed operation's misbehaviour: fail with this shape after doing (or not doing) the work. */
interface StreamFault {
  shape: FailureShape;
  /** the server-side work still happens (a lost stream), now or `afterMs` later */
  applies: boolean;
  afterMs?: number;
  serverMessage?: string;
}

export class FakeServer {
  readonly vms = new Map<number, FakeVm>();
  readonly calls: Array<{ at: number; call: string }> = [];
  shutdownMode: ShutdownMode = { mode: "blocking", takesMs: 10_000 };
  mainNode = "pve1";
  /** answers of the next `stop` calls, one consumed per call, before it works */
  readonly stopFailures: Array<{ status: number; message: string }> = [];
  /** per operation, the fault of the next call (consumed) */
  readonly streamFaults = new Map<OperationKind, StreamFault>();

  constructor(readonly clock: VirtualClock) {}

  add(vm: Partial<FakeVm> & { vmid: number }): FakeVm {
    const full: FakeVm = {
      name: `web-${vm.vmid}`,
      node: this.mainNode,
      running: true,
      cpu: 2,
      memoryMb: 2048,
      diskGb: 16,
      os: "ubuntu",
      ...vm,
    };
    this.vms.set(full.vmid, full);
    return full;
  }

  count(call: string): number {
    return this.calls.filter((c) => c.call === call).length;
  }

  client(): GoPveQemuApi {
    const api: Partial<GoPveQemuApi> = {
      list: async () => {
        this.log("list");
        return { vms: [...this.vms.values()].map(entryOf), nodes: [] };
      },
      status: async (vmid) => {
        this.log("status");
        const vm = this.vms.get(vmid);
        if (!vm) throw noConfig("status", vmid);
        // qm status is node-local
        if (vm.node !== this.mainNode) throw http(500, "failed to get VM status: exit status 2", "status", vmid);
        return vm.running ? "running" : "stopped";
      },
      shutdown: (vmid, opts) => this.shutdown(vmid, opts),
      stop: async (vmid) => {
        this.log("stop");
        const failure = this.stopFailures.shift();
        if (failure) throw http(failure.status, failure.message, "stop", vmid);
        const vm = this.mustRun(vmid, "stop");
        vm.running = false;
      },
      destroy: async (vmid) => {
        this.log("destroy");
        const vm = this.vms.get(vmid);
        if (vm?.running) throw http(400, "VM is running", "destroy", vmid);
        if (!vm) throw noConfig("destroy", vmid);
        this.vms.delete(vmid);
      },
      setCpu: async (vmid, cpu) => {
        this.log("setCpu");
        this.mustStop(vmid, "set/cpu").cpu = cpu;
      },
      setMemory: async (vmid, mb) => {
        this.log("setMemory");
        this.mustStop(vmid, "set/memory").memoryMb = mb;
      },
      growDisk: async (vmid, by) => {
        this.log("growDisk");
        this.mustStop(vmid, "set/disk").diskGb += by;
      },
      start: (vmid, opts) =>
        this.stream("start", vmid, opts, (vm) => {
          vm.running = true;
        }),
      reboot: (vmid, opts) => this.stream("reboot", vmid, opts, () => undefined),
      migrate: (vmid, node, opts) =>
        this.stream("migrate", vmid, opts, (vm) => {
          vm.node = node;
        }),
    };
    return api as GoPveQemuApi;
  }

  private log(call: string): void {
    this.calls.push({ at: this.clock.now(), call });
  }

  private mustRun(vmid: number, what: string): FakeVm {
    const vm = this.vms.get(vmid);
    if (!vm?.running) throw http(400, "VM is not running", what, vmid);
    return vm;
  }

  private mustStop(vmid: number, what: string): FakeVm {
    const vm = this.vms.get(vmid);
    if (!vm) throw noConfig(what, vmid);
    if (vm.running) throw http(400, "VM is running", what, vmid);
    return vm;
  }

  private async shutdown(vmid: number, opts: RequestOptions = {}): Promise<void> {
    this.log("shutdown");
    const vm = this.mustRun(vmid, "shutdown");
    const m = this.shutdownMode;
    const off = (ms: number): void => {
      // the server's qm shutdown carries on whatever happens to the request
      void this.clock.after(ms).then(() => {
        if (this.shutdownMode === m) vm.running = false;
      });
    };
    if (m.mode === "immediate") {
      off(m.takesMs);
      return;
    }
    if (m.mode === "blocking") off(m.takesMs);
    const answerAfter = m.mode === "blocking" ? m.takesMs : m.mode === "error" ? (m.afterMs ?? 0) : Infinity;
    await this.answerAfter(answerAfter, opts.signal, "shutdown", vmid);
    if (m.mode === "error") throw http(m.status, m.message, "shutdown", vmid);
  }

  /** Resolves after `ms` of virtual time (never for Infinity), or rejects like undici on abort. */
  private answerAfter(ms: number, signal: AbortSignal | undefined, what: string, vmid: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const ctx = { endpoint: `POST /api/vm/${vmid}/${what}`, vmid };
      const onAbort = (): void => reject(new CancelledError(`${ctx.endpoint} was cancelled`, ctx));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (ms !== Infinity) void this.clock.after(ms).then(() => resolve());
    });
  }

  private async stream(
    kind: OperationKind,
    vmid: number,
    opts: StreamOptions = {},
    work: (vm: FakeVm) => void,
  ): Promise<OperationSuccess> {
    this.log(kind);
    const vm = kind === "reboot" ? this.mustRun(vmid, kind) : this.mustStop(vmid, kind);
    const fault = this.streamFaults.get(kind);
    this.streamFaults.delete(kind);
    if (!fault) {
      work(vm);
      return { kind, warnings: [], tail: [] };
    }
    if (fault.applies) {
      if (fault.afterMs === undefined) work(vm);
      else void this.clock.after(fault.afterMs).then(() => work(vm));
    }
    void opts;
    const ctx = { endpoint: `POST /api/vm/${vmid}/${kind}`, vmid };
    throw new OperationFailedError(
      { operation: kind, shape: fault.shape, serverMessage: fault.serverMessage, tail: [] },
      ctx,
    );
  }
}

function entryOf(vm: FakeVm): VmEntry {
  return {
    vmid: vm.vmid,
    name: vm.name,
    os: vm.os ?? "",
    running: vm.running,
    node: vm.node,
    cpu: vm.cpu,
    memory: Math.floor(vm.memoryMb / 1024),
    disk: Math.floor(vm.diskGb),
  };
}

function http(status: number, message: string, what: string, vmid: number): HttpStatusError {
  return new HttpStatusError(status, message, { endpoint: `POST /api/vm/${vmid}/${what}`, vmid });
}

/** The real server's answer for a VMID with no config: it runs qm over ssh to an empty host. */
function noConfig(what: string, vmid: number): HttpStatusError {
  return http(
    500,
    `failed to ${what} VM: failed to ${what} VM: exit status 255, output: ssh: Could not resolve hostname : Name or service not known`,
    what,
    vmid,
  );
}
