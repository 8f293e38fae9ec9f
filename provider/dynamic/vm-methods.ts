// The dynamic provider's methods for a Vm, kept thin: each takes the
// engine's property bags apart, runs the core's call, and answers in the
// dynamic provider's result shapes, the engine's keys put back. A partially
// created or updated VM is the core's PartialFailure, its properties given
// the engine's keys.
import type * as pulumi from "@pulumi/pulumi";
import * as core from "../core";
import { split, withInputKeys, withKeys, type Bag } from "./engine-bags";

/** The dynamic provider's Vm methods over one provider core. */
export function dynamicVmMethods(c: core.ProviderCore) {
  /** A partial failure's properties with the engine's keys of the request. */
  const onWire = <T>(work: Promise<T>, request: Bag): Promise<T> =>
    core.onWire(work, (properties) => withKeys(properties, request));
  return {
    async check(olds: Bag, news: Bag): Promise<pulumi.dynamic.CheckResult> {
      const n = split(news);
      const result = await core.check(c, n.urn, split(olds).props, n.props, n.identity);
      return { inputs: withInputKeys(result.inputs, news), failures: result.failures };
    },
    async diff(id: string, olds: Bag, news: Bag): Promise<pulumi.dynamic.DiffResult> {
      const n = split(news);
      // The dynamic provider's host passes on only these (not the changed keys, nor their kinds).
      const { changes, replaces, deleteBeforeReplace } = await core.diff(c, id, n.urn, split(olds).props, n.props);
      return { changes, replaces, deleteBeforeReplace };
    },
    async create(inputs: Bag): Promise<pulumi.dynamic.CreateResult> {
      const { props, urn, identity } = split(inputs);
      const { id, state } = await onWire(core.create(c, urn, props, identity), inputs);
      return { id, outs: withKeys(state, inputs) };
    },
    async read(id: string, props?: Bag): Promise<pulumi.dynamic.ReadResult> {
      const { props: state, urn } = split(props);
      const found = await core.read(c, id, urn, state);
      // An empty id tells the engine the resource is gone.
      if (!found) return { id: "", props: {} };
      return {
        id: found.id,
        props: withKeys(found.state, props),
        ...(found.inputs ? { inputs: withKeys(found.inputs, props) } : {}),
      };
    },
    async update(id: string, olds: Bag, news: Bag): Promise<pulumi.dynamic.UpdateResult> {
      const o = split(olds);
      const outs = await onWire(core.update(c, id, o.urn, o.props, split(news).props), news);
      return { outs: withKeys(outs, news) };
    },
    async delete(id: string, props: Bag): Promise<void> {
      const { props: state, urn } = split(props);
      await core.remove(c, id, urn, state);
    },
  };
}

/** What the host's calls run on: a process's provider core and the Vm methods over it. */
export interface ProcessProvider {
  core: core.ProviderCore;
  vm: ReturnType<typeof dynamicVmMethods>;
}

/** The dynamic provider's configure: the whole stack config, `goPveQemu:*` keys read. */
export function configureDynamic(c: core.ProviderCore, req: pulumi.dynamic.ConfigureRequest): void {
  c.configure((key) => req.config.get(key), core.configIndex(req.config));
}
