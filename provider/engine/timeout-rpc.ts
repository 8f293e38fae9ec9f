// customTimeouts reach a resource plugin as the `timeout` of each
// CreateRequest, UpdateRequest and DeleteRequest (seconds, 0 for none), and
// the engine enforces nothing itself; Pulumi's Node.js plugin server does not
// hand that timeout to the provider's create, update or delete. So these
// three handlers keep the SDK's own (its answers, its partial failures) and
// run it with the request's timeout put where the operation finds it (the
// core's OperationTimeouts, core/deadline.ts), which ends it at the deadline
// as a cancelled one ends. They reach the SDK's server object as
// plugin/config-rpc.ts's handlers do (grpc-add-service-patch.ts); this file
// sits here, beside that patch, because plugin/ is held to 400 lines.

type Op = "create" | "update" | "delete";
type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
/** A grpc-js unary handler whose request carries a timeout. */
type Handler = (call: { request: { getTimeout(): number } }, cb: Callback) => unknown;

/** Where an operation's timeout is kept while it runs (the provider core's). */
interface TimeoutCarrier {
  run<T>(timeout: { op: Op; seconds: number }, f: () => T): T;
}

const TIMED: readonly Op[] = ["create", "update", "delete"];

/** Puts Create, Update and Delete on `own`: the SDK's handlers (`sdkImpl`'s), each run with its request's timeout. */
export function withTimeoutCalls<T extends object>(timeouts: TimeoutCarrier, sdkImpl: object, own: T): T {
  const sdk = sdkImpl as Record<Op, Handler>;
  const handlers = own as unknown as Record<Op, Handler>;
  for (const op of TIMED) {
    handlers[op] = (call, cb) =>
      timeouts.run({ op, seconds: call.request.getTimeout() }, () => sdk[op].call(own, call, cb));
  }
  return own;
}
