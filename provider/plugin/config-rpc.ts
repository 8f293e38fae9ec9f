// Pulumi's Node.js plugin server (@pulumi/pulumi/provider, `main`) answers
// Configure without reading its request, and CheckConfig and DiffConfig as
// unimplemented, so neither `pulumi config set gopveqemu:*` nor an explicit
// provider's arguments would reach the provider. Those three calls are
// answered here instead; every other call stays the SDK's. The SDK's server
// object is given to grpc-js's `addService`, which is where the three are
// put in front of it: the SDK's own grpc-js copy is the one patched, found
// from the SDK's folder.
import * as path from "node:path";
import type * as grpcType from "@grpc/grpc-js";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Bag } from "../calls";
import { checkConfig, configure, diffConfig } from "./provider-config";
import { configProblems } from "./config-check";

type Callback = (err: unknown, value?: unknown) => void;
type Call<R> = { request: R };
type Impl = Record<string, unknown> & { configure: (call: never, cb: Callback) => void };

/** The SDK's own copies: a message of another copy is not one the SDK's server can send. */
const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromSdk = <T>(id: string): T => require(require.resolve(id, { paths: [sdk] })) as T;
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

/** The three config calls, over the SDK's server object (the others reach it through the prototype). */
function withConfig(impl: Impl): Impl {
  const own = Object.create(impl) as Impl;
  own.checkConfig = (call: Call<provproto.CheckRequest>, cb: Callback) => {
    try {
      const news = bagOf(call.request.getNews());
      const resp = new provproto.CheckResponse();
      resp.setInputs(Struct.fromJavaScript(checkConfig(bagOf(call.request.getOlds()), news)) as never);
      resp.setFailuresList(
        configProblems(news).map(({ property, reason }) => {
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
  own.configure = (call: Call<provproto.ConfigureRequest>, cb: Callback) => {
    try {
      configure(argsOf(call.request));
    } catch {
      // Kept by the settings: every call of this provider fails with it, as on the dynamic door.
    }
    impl.configure.call(own, call as never, cb);
  };
  return own;
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

/** Puts the three calls in front of the SDK's plugin server; call before `main`. */
export function answerConfigCalls(): void {
  const grpc = fromSdk<typeof grpcType>("@grpc/grpc-js");
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (service, implementation) {
    const impl = implementation as unknown as Impl;
    const isProvider = "checkConfig" in service && "configure" in service;
    return addService.call(this, service, (isProvider ? withConfig(impl) : impl) as never);
  };
}
