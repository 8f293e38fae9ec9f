// The Vm's Diff, answered on the wire here: Pulumi's Node.js plugin server
// copies only changes, replaces and deleteBeforeReplace from a provider's
// diff, and the engine needs the changed keys and each one's kind to apply
// `replaceOnChanges` (it matches the option's paths against them alone) and
// to give `pulumi preview --json` its diffReasons and detailedDiff. The diff
// itself is still the plugin's provider object's (the Vm's type checked, the
// request's secrets unwrapped: vm-provider.ts); only its answer is put on the
// wire in full. Hooked in by config-rpc.ts over the SDK's server object.
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import type { Bag, Diffed, PropertyChange } from "../core";

type Callback = (err: unknown, value?: unknown) => void;
/** The SDK's server object, as much of it as is used here: the provider object `main` was given. */
interface SdkServer {
  provider: { diff?: (id: string, urn: string, olds: Bag, news: Bag) => Promise<unknown> };
}
interface StructLike {
  toJavaScript(): unknown;
}

const Kind = provproto.PropertyDiff.Kind;
const KINDS: Record<PropertyChange, provproto.PropertyDiff.Kind> = {
  add: Kind.ADD,
  "add-replace": Kind.ADD_REPLACE,
  update: Kind.UPDATE,
  "update-replace": Kind.UPDATE_REPLACE,
  delete: Kind.DELETE,
  "delete-replace": Kind.DELETE_REPLACE,
};

/** The Diff call of the gRPC service, over the SDK's server object's provider. */
export function diffCall(sdk: object) {
  const { provider } = sdk as Partial<SdkServer>;
  // An SDK that no longer keeps it there fails here, when the server starts (and in the patch's contract test).
  if (provider === null || typeof provider !== "object")
    throw new Error(
      "the Pulumi SDK's plugin server holds no provider object; see provider/engine/grpc-add-service-patch.ts",
    );
  return (call: { request: provproto.DiffRequest }, cb: Callback): void => {
    const req = call.request;
    const olds = bagOf(req.getOlds());
    if (provider.diff === undefined) return cb(null, new provproto.DiffResponse());
    provider.diff(req.getId(), req.getUrn(), olds, bagOf(req.getNews())).then(
      (d) => cb(null, diffResponse(d as Diffed, olds)),
      (err: unknown) => {
        // As the SDK's own Diff does: the error on stderr, which the engine logs, and to the engine.
        console.error(`${String(err)}: ${err instanceof Error ? err.stack : ""}`);
        cb(err);
      },
    );
  };
}

/**
 * The core's diff as the engine's DiffResponse. `olds`: the state the engine
 * sent. A key the state holds is compared with the state's value (the engine
 * shows that old value); any other (name, sshPublicKey, rebootTriggers,
 * storePassword) with the inputs as last applied: an input diff.
 */
function diffResponse(d: Diffed, olds: Bag): provproto.DiffResponse {
  const resp = new provproto.DiffResponse();
  resp.setChanges(
    d.changes ? provproto.DiffResponse.DiffChanges.DIFF_SOME : provproto.DiffResponse.DiffChanges.DIFF_NONE,
  );
  resp.setReplacesList(d.replaces);
  resp.setDeletebeforereplace(d.deleteBeforeReplace);
  resp.setDiffsList(d.diffs);
  resp.setHasdetaileddiff(true);
  const detailed = resp.getDetaileddiffMap();
  for (const [key, change] of Object.entries(d.detailedDiff)) {
    const p = new provproto.PropertyDiff();
    p.setKind(KINDS[change]);
    p.setInputdiff(!(key in olds));
    detailed.set(key, p);
  }
  return resp;
}

function bagOf(s: unknown): Bag {
  return ((s as StructLike | undefined)?.toJavaScript() ?? {}) as Bag;
}
