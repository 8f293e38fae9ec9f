// The Vm's methods on the plugin door: each takes the plugin's wire values
// to the bags of the shared engine calls (the same functions the dynamic
// door runs) and their answers back. A partially created or updated VM
// keeps its shape: the shared calls throw an error with `id` and
// `properties`, which the plugin server turns into the engine's
// ErrorResourceInitFailed, as the dynamic host does; its properties are put
// on the wire here.
import * as calls from "../calls";
import type { Bag } from "../calls";
import { providerIdentity } from "./provider-config";
import { fromCalls, toCalls } from "./wire-bags";

/** The identity a Vm's inputs carry: the one it was made with (kept in its inputs), else the provider's. */
function identityOf(olds: Bag | undefined): string | undefined {
  const kept = toCalls(olds, "").__stackIdentity;
  return typeof kept === "string" && kept !== "" ? kept : providerIdentity();
}

/** Runs a shared call, putting a partial failure's properties on the wire. */
async function onWire<T>(work: Promise<T>, request: Bag): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const partial = err as { id?: unknown; properties?: Bag };
    if (partial && typeof partial.id === "string" && partial.properties) {
      partial.properties = fromCalls(partial.properties, request, "outputs");
    }
    throw err;
  }
}

export const vmMethods = {
  async check(urn: string, olds: Bag, news: Bag) {
    const result = await calls.check(toCalls(olds, urn), toCalls(news, urn, identityOf(olds)));
    return { inputs: fromCalls(result.inputs as Bag, news, "inputs"), failures: result.failures ?? [] };
  },
  async diff(id: string, urn: string, olds: Bag, news: Bag) {
    return calls.diff(id, toCalls(olds, urn), toCalls(news, urn));
  },
  async create(urn: string, inputs: Bag) {
    const { id, outs } = await onWire(calls.create(toCalls(inputs, urn, identityOf(inputs))), inputs);
    return { id, outs: fromCalls(outs as Bag, inputs, "outputs") };
  },
  async read(id: string, urn: string, props?: Bag) {
    const result = await calls.read(id, toCalls(props, urn));
    // An empty id tells the engine the VM is gone.
    if (!result.id) return { id: "", props: {} };
    return {
      id: result.id,
      props: fromCalls(result.props as Bag, props, "outputs"),
      ...(result.inputs ? { inputs: fromCalls(result.inputs as Bag, props, "inputs") } : {}),
    };
  },
  async update(id: string, urn: string, olds: Bag, news: Bag) {
    const { outs } = await onWire(calls.update(id, toCalls(olds, urn), toCalls(news, urn)), news);
    return { outs: fromCalls(outs as Bag, news, "outputs") };
  },
  async delete(id: string, urn: string, props: Bag) {
    await calls.remove(id, toCalls(props, urn));
  },
};
