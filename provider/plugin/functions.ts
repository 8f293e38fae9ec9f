// The plugin's getNodes and getVms: the core's reading of the cluster. At an
// offline preview they answer empty lists, and say so: the engine takes no
// unknown value from a plugin's function, as the Node.js ones give then.
import type { ProviderCore } from "../core";
import type { ConnectionInput } from "../lifecycle";
import { unwrapSecrets } from "./wire-bags";
import { GET_NODES_TOKEN, GET_VMS_TOKEN } from "../tokens";

/** The function tokens, and the output each answers with. */
const FUNCTIONS: Record<string, "nodes" | "vms"> = {
  [GET_NODES_TOKEN]: "nodes",
  [GET_VMS_TOKEN]: "vms",
};

export async function invoke(
  core: ProviderCore,
  token: string,
  inputs: unknown,
  preview: boolean,
): Promise<{ outputs: Record<string, unknown> }> {
  const what = FUNCTIONS[token];
  if (what === undefined) {
    throw new Error(`unknown function ${token}; this provider has ${Object.keys(FUNCTIONS).join(", ")}`);
  }
  const name = token.split(":").pop();
  const args = (unwrapSecrets(inputs) ?? {}) as { connection?: ConnectionInput };
  try {
    const cluster = await core.clusters.read(args.connection, preview);
    if (cluster !== undefined) return { outputs: { [what]: cluster[what] } };
    core.log.reporter("").warn(`${name}: offline preview: an empty list until \`pulumi up\` reads the server`);
    await core.log.flush("");
    return { outputs: { [what]: [] } };
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`, { cause: err });
  }
}
