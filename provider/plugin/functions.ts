// The plugin's functions: getNodes and getVms, the same reading of the
// cluster as the Node.js data sources (provider/data), answered by the
// provider process with its own configuration.
import { readCluster } from "../cluster";
import { configured, serverNodeOf } from "../calls";
import { resolveConnection, type ConnectionInput } from "../lifecycle";
import { PACKAGE } from "./provider-config";
import { unwrapSecrets } from "./wire-bags";

/** The function tokens, and the output each answers with. */
const FUNCTIONS: Record<string, "nodes" | "vms"> = {
  [`${PACKAGE}:index:getNodes`]: "nodes",
  [`${PACKAGE}:index:getVms`]: "vms",
};

export async function invoke(token: string, inputs: unknown): Promise<{ outputs: Record<string, unknown> }> {
  const what = FUNCTIONS[token];
  if (what === undefined) {
    throw new Error(`unknown function ${token}; this provider has ${Object.keys(FUNCTIONS).join(", ")}`);
  }
  const name = token.split(":").pop();
  const settings = configured();
  const args = (unwrapSecrets(inputs) ?? {}) as { connection?: ConnectionInput };
  let conn;
  try {
    conn = resolveConnection(args.connection, settings.connection);
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const cluster = await readCluster(conn, settings.serverChecks.timeoutMs, await serverNodeOf(conn.endpoint));
    return { outputs: { [what]: cluster[what] } };
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}`, { cause: err });
  }
}
