// The Vm's methods on the resource plugin: each takes the plugin's wire
// values to the core's plain bags and the core's answers back to the wire.
// A partially created or updated VM is the core's PartialFailure, which the
// plugin server turns into the engine's ErrorResourceInitFailed, as the
// dynamic provider host does; its properties are put on the wire here.
import * as core from "../core";
import type { Bag } from "../core";
import { IDENTITY_KEY } from "../engine";
import { fromCore, toCore } from "./wire-bags";

/** The plugin's Vm methods over one provider core. */
export function vmMethods(c: core.ProviderCore) {
  /** The identity a Vm's inputs carry: the one it was made with (kept in its inputs), else the provider's. */
  const identityOf = (bag: Bag | undefined): string | undefined => toCore(bag).identity ?? c.providerIdentity;
  /** A partial failure's properties on the plugin's wire, secrets marked. */
  const onWire = <T>(work: Promise<T>, request: Bag): Promise<T> =>
    core.onWire(work, (properties) => fromCore(properties, request, "outputs"));
  return {
    async check(urn: string, olds: Bag, news: Bag) {
      const n = toCore(news);
      const identity = n.identity ?? identityOf(olds);
      const result = await core.check(c, urn, toCore(olds).props, n.props, identity);
      // The identity stays among the Vm's inputs: the one it was made with, for its whole life.
      const inputs = identity === undefined ? result.inputs : { ...result.inputs, [IDENTITY_KEY]: identity };
      return { inputs: fromCore(inputs, news, "inputs"), failures: result.failures };
    },
    async diff(id: string, urn: string, olds: Bag, news: Bag) {
      return core.diff(c, id, urn, toCore(olds).props, toCore(news).props);
    },
    async create(urn: string, inputs: Bag) {
      const { id, state } = await onWire(core.create(c, urn, toCore(inputs).props, identityOf(inputs)), inputs);
      return { id, outs: fromCore(state, inputs, "outputs") };
    },
    async read(id: string, urn: string, props?: Bag) {
      const found = await core.read(c, id, urn, toCore(props).props);
      // An empty id tells the engine the VM is gone.
      if (!found) return { id: "", props: {} };
      return {
        id: found.id,
        props: fromCore(found.state, props, "outputs"),
        ...(found.inputs ? { inputs: fromCore(found.inputs, props, "inputs") } : {}),
      };
    },
    async update(id: string, urn: string, olds: Bag, news: Bag) {
      const outs = await onWire(core.update(c, id, urn, toCore(olds).props, toCore(news).props), news);
      return { outs: fromCore(outs, news, "outputs") };
    },
    async delete(id: string, urn: string, props: Bag) {
      await core.remove(c, id, urn, toCore(props).props);
    },
  };
}
