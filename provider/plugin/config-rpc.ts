// Pulumi's Node.js plugin server (@pulumi/pulumi/provider, `main`) answers
// Configure without reading its request, and CheckConfig and DiffConfig as
// unimplemented, so neither `pulumi config set gopveqemu:*` nor an explicit
// provider's arguments would reach the provider; and its Invoke drops the
// request's `preview`, which an offline preview needs. Those four calls are
// answered here instead; every other call stays the SDK's. How they reach
// the SDK's server object is engine/grpc-add-service-patch.ts.
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Bag, ProviderCore } from "../core";
import { fromSdk, withTimeoutCalls } from "../engine";
import { settingProblems } from "../settings";
import { diffCall } from "./diff-rpc";
import { invoke } from "./functions";
import { checkConfig, configure, diffConfig } from "./provider-config";
import { unwrapSecrets } from "./wire-bags";
import { PACKAGE } from "../tokens";

type Callback = (err: unknown, value?: unknown) => void;
type Call<R> = { request: R };
type Impl = Record<string, unknown> & { configure: (call: never, cb: Callback) => void };
/** google-protobuf's Struct, as much of it as is used here. */
interface StructType {
  toJavaScript(): unknown;
}
const { Struct } = fromSdk<{ Struct: { fromJavaScript(value: object): StructType } }>(
  "google-protobuf/google/protobuf/struct_pb",
);

function bagOf(s: StructType | undefined): Bag {
  return (s?.toJavaScript() ?? {}) as Bag;
}

/** The config calls and Invoke, over the SDK's server object (the others reach it through the prototype). */
export function withConfigCalls(core: ProviderCore, sdkImpl: object): object {
  const impl = sdkImpl as Impl;
  const own = Object.create(impl) as Impl;
  own.checkConfig = (call: Call<provproto.CheckRequest>, cb: Callback) => {
    try {
      const news = bagOf(call.request.getNews());
      const resp = new provproto.CheckResponse();
      resp.setInputs(Struct.fromJavaScript(checkConfig(bagOf(call.request.getOlds()), news)) as never);
      resp.setFailuresList(
        settingProblems(unwrapSecrets(news) as Bag, PACKAGE).map(({ property, reason }) => {
          const f = new provproto.CheckFailure();
          f.setProperty(property);
          f.setReason(reason);
          return f;
        }),
      );
      cb(null, resp);
    } catch (err) {
      cb(err);
    }
  };
  own.diffConfig = (call: Call<provproto.DiffRequest>, cb: Callback) => {
    try {
      const changed = diffConfig(bagOf(call.request.getOlds()), bagOf(call.request.getNews()));
      const resp = new provproto.DiffResponse();
      resp.setChanges(
        changed.length > 0
          ? provproto.DiffResponse.DiffChanges.DIFF_SOME
          : provproto.DiffResponse.DiffChanges.DIFF_NONE,
      );
      resp.setDiffsList(changed);
      cb(null, resp);
    } catch (err) {
      cb(err);
    }
  };
  own.diff = diffCall(impl); // the Vm's Diff answered in full (changed keys, their kinds): diff-rpc.ts
  own.invoke = (call: Call<provproto.InvokeRequest>, cb: Callback) => {
    const req = call.request;
    invoke(core, req.getTok(), bagOf(req.getArgs()), req.getPreview()).then(
      ({ outputs }) => {
        const resp = new provproto.InvokeResponse();
        resp.setReturn(Struct.fromJavaScript(outputs) as never);
        cb(null, resp);
      },
      (err: unknown) => cb(err),
    );
  };
  own.configure = (call: Call<provproto.ConfigureRequest>, cb: Callback) => {
    try {
      configure(core, argsOf(call.request));
    } catch {
      // Kept by the core: every call of this provider fails with it, as on the dynamic provider.
    }
    impl.configure.call(own, call as never, cb);
  };
  return withTimeoutCalls(core.timeouts, impl, own); // Create, Update, Delete: the SDK's, given their customTimeouts
}

/** The provider's arguments; an engine that sends only the older `variables` map (`<pkg>:config:<key>`) is read too. */
function argsOf(req: provproto.ConfigureRequest): Bag {
  const args = req.getArgs();
  if (args) return bagOf(args);
  const out: Bag = {};
  req.getVariablesMap().forEach((v, k) => {
    out[k.slice(k.lastIndexOf(":") + 1)] = v;
  });
  return out;
}
