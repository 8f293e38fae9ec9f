// The lists of secrets both ways in mark (provider/engine/secrets.ts) are the
// zod schemas' `secret` metadata: an output or input newly marked secret in
// a schema fails here until the lists say so too.
import { z } from "zod";
import { CONNECTION_SECRETS, SECRET_INPUTS, SECRET_OUTPUTS, carriesCredentials } from "../../provider/engine";
import { VmInputsSchema, VmStateSchema } from "../../provider/lifecycle";

type Json = { properties?: Record<string, Json>; secret?: boolean; type?: string };

const propertiesOf = (schema: z.ZodType, io: "input" | "output") =>
  (z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Json).properties ?? {};
const secretKeys = (props: Record<string, Json>) =>
  Object.entries(props)
    .filter(([, p]) => p.secret === true)
    .map(([k]) => k)
    .sort();

test("the secret outputs are the state schema's secret fields", () => {
  expect([...SECRET_OUTPUTS].sort()).toEqual(secretKeys(propertiesOf(VmStateSchema, "output")));
});

test("the secret inputs: the input schema's secret single values, and the connection by its secret fields", () => {
  const props = propertiesOf(VmInputsSchema, "input");
  const single = secretKeys(props).filter((k) => props[k]!.type !== "object");
  expect([...SECRET_INPUTS].sort()).toEqual(single);
  expect([...CONNECTION_SECRETS].sort()).toEqual(secretKeys(props.connection!.properties ?? {}));
});

test("a connection is a secret as a whole exactly when it carries a credential", () => {
  expect(carriesCredentials({ endpoint: "http://h" })).toBe(false);
  expect(carriesCredentials({ endpoint: "http://h", token: "t" })).toBe(true);
  expect(carriesCredentials({ endpoint: "http://h", headers: { a: "b" } })).toBe(true);
  expect(carriesCredentials(undefined)).toBe(false);
});
