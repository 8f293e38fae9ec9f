// customTimeouts reach a resource plugin as the `timeout` of each
// CreateRequest, UpdateRequest and DeleteRequest (seconds, 0 for none), and
// the engine enforces nothing itself; Pulumi's Node.js plugin server does not
// hand that timeout to the provider's create, update or delete. So these
// three handlers keep the SDK's own (its answers, its partial failures) and
// run it with the request's timeout known to the provider core, where the
// operation finds it (core/deadline.ts) and ends at it as a cancelled one
// does. How they reach the SDK's server object: config-rpc.ts.
import type { ProviderCore, TimedOperation } from "../core";

type Callback = (err: unknown, value?: unknown, metadata?: unknown) => void;
/** A grpc-js unary handler whose request carries a timeout. */
type Handler = (call: { request: { getTimeout(): number } }, cb: Callback) => unknown;

const TIMED: readonly TimedOperation[] = ["create", "update", "delete"];

/** Puts Create, Update and Delete on `own`: the SDK's handlers (`sdkImpl`'s), run with the request's timeout. */
export function withTimeoutCalls(core: ProviderCore, sdkImpl: object, own: object): void {
  const sdk = sdkImpl as Record<TimedOperation, Handler>;
  const handlers = own as Record<TimedOperation, Handler>;
  for (const op of TIMED) {
    handlers[op] = (call, cb) =>
      core.timeouts.run({ op, seconds: call.request.getTimeout() }, () => sdk[op].call(own, call, cb));
  }
}
