// The plugin's functions: getNodes and getVms, the same reading of the
// cluster as the Node.js data sources (provider/data), through the core's
// clients and snapshots, answered with the provider's own configuration.
import type { ProviderCore } from "../core";
import type { ConnectionInput } from "../lifecycle";
import { PACKAGE } from "./provider-config";
import { unwrapSecrets } from "./wire-bags";

/** The function tokens, and the output each answers with. */
const FUNCTIONS: Record<string, "nodes" | "vms"> = {
  [`${PACKAGE}:index:getNodes`]: "nodes",
  [`${PACKAGE}:index:getVms`]: "vms",
};

export async function invoke(
  core: ProviderCore,
  token: string,
  inputs: unknown,
): Promise<{ outputs: Record<string, unknown> }> {
  const what = FUNCTIONS[token];
  if (what === undefined) {
    throw new Error(`unknown function ${token}; this provider has ${Object.keys(FUNCTIONS).join(", ")}`);
  }
  const name = token.split(":").pop();
  const args = (unwrapSecrets(inputs) ?? {}) as { connection?: ConnectionInput };
  try {
    // An invoke does not say whether it is a preview: the server is asked.
    const cluster = await core.clusters.read(args.connection, false);
    return { outputs: { [what]: cluster![what] } };
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`, { cause: err });
  }
}
