// GoPveQemuClient: one typed method per go-pve-qemu endpoint. Plain calls are
// sent and read whole; the four streamed operations (install, start, reboot,
// set/node) go to the operation reader, which decides from the whole stream
// whether they succeeded (HTTP 200 alone says nothing).
import { z } from "zod";
import type {
  ConnectionOptions,
  GoPveQemuApi,
  InstallOptions,
  ListOptions,
  PowerStatus,
  RequestOptions,
  StreamOptions,
} from "./api";
import { openConnection, type Connection } from "./pool";
import { CancelledError, ResponseShapeError, type ErrorContext } from "./errors";
import { ListCache, ServerWrites } from "./list-cache";
import { label, requestPlain, serverWords, type Method, type PlainAnswer } from "./http";
import { runOperation, type OperationRequest } from "./operation";
import { ListResponseSchema, OkTextSchema, PowerStatusSchema, type InstallRequest, type VmList } from "./schemas";
import type { InstallSuccess, OperationEvent, OperationSuccess } from "./stream/types";

/** How long close() lets running requests finish before it cuts them. */
const CLOSE_GRACE_MS = 1000;

export class GoPveQemuClient implements GoPveQemuApi {
  private readonly conn: Connection;
  /** Every write moves this server's generation: no list answer is shared across one. */
  private readonly writes: ServerWrites;
  private readonly lists: ListCache<VmList>;

  constructor(options: ConnectionOptions) {
    this.conn = openConnection(options);
    this.writes = options.serverWrites?.of(`${this.conn.origin}${this.conn.apiBase}`) ?? new ServerWrites();
    const windowMs = options.listShareMs ?? 0;
    const cancelled = (signal: AbortSignal): Error => {
      const ctx = this.ctx("GET", "/vm/list");
      return new CancelledError(`${ctx.endpoint} to ${this.conn.origin} was cancelled`, ctx, { cause: signal.reason });
    };
    // Requests follow each other: a read that cannot share the one in flight waits for the next.
    this.lists = new ListCache(this.writes, windowMs, cancelled, { followUp: true });
  }

  // ---- plain endpoints -------------------------------------------------------

  async health(opts: RequestOptions = {}): Promise<string> {
    const ctx = this.ctx("GET", "/health");
    const answer = await requestPlain(this.conn, "GET", "/health", ctx, opts);
    return this.shape(OkTextSchema, answer.text.trim(), ctx, answer);
  }

  async list(opts: ListOptions = {}): Promise<VmList> {
    // A per-call timeout is that caller's alone: such a list is a request of its own.
    if (opts.timeoutMs !== undefined) return this.requestList({ signal: opts.signal, timeoutMs: opts.timeoutMs });
    return this.lists.get(opts, (signal) => this.requestList({ signal }));
  }

  private async requestList(opts: RequestOptions): Promise<VmList> {
    const ctx = this.ctx("GET", "/vm/list");
    const answer = await requestPlain(this.conn, "GET", "/vm/list", ctx, opts);
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      throw new ResponseShapeError(
        `${ctx.endpoint} answered ${answer.status} with text, not JSON: ${serverWords(answer.text)}`,
        ctx,
      );
    }
    return this.shape(ListResponseSchema, json, ctx, answer);
  }

  async status(vmid: number, opts: RequestOptions = {}): Promise<PowerStatus> {
    const path = `/vm/${checkVmid(vmid)}/status`;
    const ctx = this.ctx("GET", path, vmid);
    const answer = await requestPlain(this.conn, "GET", path, ctx, opts);
    return this.shape(PowerStatusSchema, statusWord(answer.text), ctx, answer);
  }

  async stop(vmid: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "stop", undefined, opts);
  }

  async shutdown(vmid: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "shutdown", undefined, opts);
  }

  async destroy(vmid: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "destroy", undefined, opts);
  }

  async setCpu(vmid: number, cpu: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "set/cpu", { cpu: checkCount("cpu", cpu) }, opts);
  }

  async setMemory(vmid: number, memoryMb: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "set/memory", { memory: checkCount("memoryMb", memoryMb) }, opts);
  }

  async growDisk(vmid: number, byGb: number, opts: RequestOptions = {}): Promise<void> {
    return this.command(vmid, "set/disk", { disk: `${checkCount("byGb", byGb)}G` }, opts);
  }

  // ---- streamed operations ---------------------------------------------------

  async install(request: InstallRequest, opts: InstallOptions = {}): Promise<InstallSuccess> {
    const ctx = this.ctx("POST", "/vm/install", request.id);
    const req = { kind: "install" as const, path: "/vm/install", ctx, json: request, requestName: request.name };
    return this.operation(req, opts) as Promise<InstallSuccess>;
  }

  async start(vmid: number, opts: StreamOptions = {}): Promise<OperationSuccess> {
    const path = `/vm/${checkVmid(vmid)}/start`;
    return this.operation({ kind: "start", path, ctx: this.ctx("POST", path, vmid) }, opts);
  }

  async reboot(vmid: number, opts: StreamOptions = {}): Promise<OperationSuccess> {
    const path = `/vm/${checkVmid(vmid)}/reboot`;
    return this.operation({ kind: "reboot", path, ctx: this.ctx("POST", path, vmid) }, opts);
  }

  async migrate(vmid: number, node: string, opts: StreamOptions = {}): Promise<OperationSuccess> {
    const path = `/vm/${checkVmid(vmid)}/set/node`;
    return this.operation({ kind: "migrate", path, ctx: this.ctx("POST", path, vmid), json: { node } }, opts);
  }

  async close(): Promise<void> {
    const pool = this.conn.pool;
    if (pool.closed) return;
    let timer: NodeJS.Timeout | undefined;
    const graceful = pool.close().then(() => true);
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_GRACE_MS)));
    const done = await Promise.race([graceful, late]);
    clearTimeout(timer);
    if (!done) await pool.destroy(new Error("client closed"));
  }

  // ---- internals -------------------------------------------------------------

  /**
   * A streamed operation is a write from its request to its end, and every
   * event in it says the server did something: each one ends shared list answers too.
   */
  private operation(req: OperationRequest, opts: InstallOptions): Promise<OperationSuccess | InstallSuccess> {
    const onEvent = (event: OperationEvent): void => {
      this.writes.progressed();
      opts.onEvent?.(event);
    };
    return this.writes.around(() => runOperation(this.conn, req, { ...opts, onEvent }));
  }

  private ctx(method: Method, path: string, vmid?: number): ErrorContext {
    return vmid === undefined
      ? { endpoint: label(this.conn, method, path) }
      : { endpoint: label(this.conn, method, path), vmid };
  }

  private shape<S extends z.ZodType>(schema: S, value: unknown, ctx: ErrorContext, answer: PlainAnswer): z.output<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.length ? i.path.join(".") : "answer"}: ${i.message}`)
      .join("; ");
    throw new ResponseShapeError(
      `${ctx.endpoint}${ctx.vmid !== undefined ? ` (VM ${ctx.vmid})` : ""} answered ${answer.status} with an unexpected body (${issues}): ${serverWords(answer.text)}`,
      ctx,
    );
  }

  /**
   * stop / shutdown / destroy / set/cpu / set/memory / set/disk: 200 `ok` or an
   * error status. `opts.timeoutMs` overrides the request timeout (shutdown waits for the guest).
   */
  private async command(vmid: number, action: string, json: unknown, opts: RequestOptions): Promise<void> {
    const path = `/vm/${checkVmid(vmid)}/${action}`;
    const ctx = this.ctx("POST", path, vmid);
    const answer = await this.writes.around(() =>
      requestPlain(this.conn, "POST", path, ctx, { json, signal: opts.signal, timeoutMs: opts.timeoutMs }),
    );
    if (isOkAnswer(answer.text)) return;
    this.shape(OkTextSchema, answer.text.trim(), ctx, answer);
  }
}

function isOkAnswer(text: string): boolean {
  const t = text.trim();
  if (t === "" || /^ok$/i.test(t)) return true; // 204 / empty 200 from a proxy, or the server's `ok`
  if (t.startsWith("{")) {
    try {
      const v = JSON.parse(t) as { success?: unknown };
      return v.success === true;
    } catch {
      return false;
    }
  }
  return false;
}

/** "running", or "status: running" (raw `qm status`), or {"status":"running"}. */
function statusWord(text: string): string {
  const t = text.trim();
  if (t.startsWith("{")) {
    try {
      const v = JSON.parse(t) as { status?: unknown };
      if (typeof v.status === "string") return v.status.trim();
    } catch {
      // fall through: validated (and rejected) as text
    }
  }
  return t.startsWith("status:") ? t.slice("status:".length).trim() : t;
}

function checkVmid(vmid: number): number {
  if (!Number.isSafeInteger(vmid) || vmid < 1) throw new RangeError(`VMID must be a positive integer, got ${vmid}`);
  return vmid;
}

function checkCount(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${n}`);
  return n;
}
