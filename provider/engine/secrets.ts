// Which of a VM's properties are secrets, whatever the program passed, for
// both ways in: the outputs and inputs the zod schemas mark `secret` (a
// test holds these lists to that metadata: test/engine/secrets.test.ts).
// Written as plain lists, not read off the schemas here, because the
// dynamic provider's Vm marks them in the user's program, which must not
// load zod to declare a VM.

/** Outputs kept encrypted in state (VmStateSchema's `secret` fields). */
export const SECRET_OUTPUTS: readonly string[] = ["password", "passwordHash", "connection"];

/** Inputs that are secrets as they are (VmInputsSchema's `secret` fields that hold one value). */
export const SECRET_INPUTS: readonly string[] = ["password"];

/** The connection's own secret fields: a connection that holds one is a secret as a whole. */
export const CONNECTION_SECRETS: readonly string[] = ["token", "headers"];

/** A connection with a token or headers is a secret as a whole, among the inputs and the outputs alike. */
export function carriesCredentials(connection: unknown): boolean {
  if (connection === null || typeof connection !== "object") return false;
  return CONNECTION_SECRETS.some((k) => (connection as Record<string, unknown>)[k] !== undefined);
}
