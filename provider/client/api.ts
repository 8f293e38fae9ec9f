// The client's surface: one method per endpoint of go-pve-qemu. The lifecycle
// layer depends on this interface only; `GoPveQemuClient` implements it over undici.
import type { ServerWritesRegistry } from "./list-cache";
import type { WatchdogClock } from "./stream/liveness";
import type { InstallRequest, VmList } from "./schemas";
import type { InstallFacts, InstallSuccess, OperationEvent, OperationSuccess } from "./stream/types";

export interface ConnectionOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8080 (the /api prefix is added by the client). */
  endpoint: string;
  /** Sent as `Authorization: Bearer <token>` (for a server behind an authenticating proxy). */
  token?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** PEM CA certificate(s) trusted for https endpoints. */
  caCert?: string;
  /** Skip TLS verification (https only; for lab setups). */
  insecureSkipVerify?: boolean;
  /** TCP/TLS connect timeout. Default 10 s. */
  connectTimeoutMs?: number;
  /** Timeout for a plain (non-streamed) request, headers and body. Default 60 s. */
  requestTimeoutMs?: number;
  /**
   * Longest silence tolerated inside a stream before it counts as dead. The server is silent
   * for up to ~10 minutes while it waits for SSH, so the default is 15 minutes.
   */
  streamIdleTimeoutMs?: number;
  /** Longest a streamed operation may take in all. Default 60 minutes. */
  streamOverallTimeoutMs?: number;
  /**
   * Longest wait for a streamed operation's answer headers. go-pve-qemu sends them before any
   * work, so none in this time means the server never began; a gateway that buffers answers
   * replies sooner, after its own timeout. Default 120 s.
   */
  streamHeadersTimeoutMs?: number;
  /**
   * Concurrent `list` calls share one request, and a list that started at most
   * this long ago (with no write to the server since) serves later calls too;
   * a call that cannot share the request in flight waits for it and shares
   * the next. Keep it well below any poll interval. Default 0:
   * every call makes its own request at once.
   */
  listShareMs?: number;
  /**
   * The process's record of writes per server, shared by all its clients: a
   * write through any client of a server ends the shared list answers of
   * every other. Default: this client's writes alone.
   */
  serverWrites?: ServerWritesRegistry;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Called for every decoded event, in order, as it arrives. */
  onEvent?: (event: OperationEvent) => void;
  /** Per-call overrides of the connection's stream timeouts. */
  idleTimeoutMs?: number;
  overallTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** The time those timeouts are measured in (default: the system's); tests inject their own. */
  clock?: WatchdogClock;
}

export interface InstallOptions extends StreamOptions {
  /** Called each time a new fact is learned (VMID, IP, ...), with all facts so far. */
  onFacts?: (facts: InstallFacts) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /**
   * Per-call override of the connection's requestTimeoutMs: a `shutdown` is answered only
   * once the guest is off (`qm shutdown` waits), which can take minutes.
   */
  timeoutMs?: number;
}

export interface ListOptions extends RequestOptions {
  /** A new request, never a shared answer (see ConnectionOptions.listShareMs). */
  fresh?: boolean;
  /** Starts at once, never waiting for a shared list in flight: for a caller that holds the install lock. */
  immediate?: boolean;
}

/** The power state word from GET /vm/:id/status ("running", "stopped", ...). */
export type PowerStatus = string;

export interface GoPveQemuApi {
  /** GET /api/health -> "ok" */
  health(opts?: RequestOptions): Promise<string>;
  /** GET /api/vm/list, either shape, normalised to {vms, nodes} */
  list(opts?: ListOptions): Promise<VmList>;
  /** GET /api/vm/:id/status -> the status word */
  status(vmid: number, opts?: RequestOptions): Promise<PowerStatus>;

  /** POST /api/vm/install (SSE). Resolves on success; rejects with OperationFailedError (carrying facts) otherwise. */
  install(request: InstallRequest, opts?: InstallOptions): Promise<InstallSuccess>;
  /** POST /api/vm/:id/start (SSE); success needs the `info` event and close. */
  start(vmid: number, opts?: StreamOptions): Promise<OperationSuccess>;
  /** POST /api/vm/:id/reboot (SSE); success needs the `info` event and close. */
  reboot(vmid: number, opts?: StreamOptions): Promise<OperationSuccess>;
  /** POST /api/vm/:id/set/node (SSE migration); success needs close and no error. */
  migrate(vmid: number, node: string, opts?: StreamOptions): Promise<OperationSuccess>;

  /** POST /api/vm/:id/stop -> "ok" */
  stop(vmid: number, opts?: RequestOptions): Promise<void>;
  /** POST /api/vm/:id/shutdown -> "ok"; the real server answers only once the guest is off (pass timeoutMs). */
  shutdown(vmid: number, opts?: RequestOptions): Promise<void>;
  /** POST /api/vm/:id/destroy -> "ok" */
  destroy(vmid: number, opts?: RequestOptions): Promise<void>;
  /** POST /api/vm/:id/set/cpu {"cpu": n} */
  setCpu(vmid: number, cpu: number, opts?: RequestOptions): Promise<void>;
  /** POST /api/vm/:id/set/memory {"memory": mb} */
  setMemory(vmid: number, memoryMb: number, opts?: RequestOptions): Promise<void>;
  /** POST /api/vm/:id/set/disk {"disk": "<n>G"}: grows the disk BY n GiB. */
  growDisk(vmid: number, byGb: number, opts?: RequestOptions): Promise<void>;

  /** Closes the pooled connections. */
  close(): Promise<void>;
}
