// The package schema is made from the provider's zod schemas: every input,
// output, config key and description comes from them, secrets are marked, and
// what zod cannot say in Pulumi's types fails with the property's path.
import { z } from "zod";
import { NodeInfoSchema, VmInfoSchema } from "../../provider/cluster";
import { INPUT_KEYS, VmInputsSchema, VmStateSchema } from "../../provider/lifecycle/model";
import { OsSchema } from "../../provider/client";
import { packageSchema } from "../../provider/package-schema";
import { TypeRegistry, objectSpec } from "../../provider/package-schema/convert";
import { ConfigSchema, ProviderInputsSchema, readSettings } from "../../provider/settings";

const spec = packageSchema("1.2.3");
const vm = spec.resources["gopveqemu:index:Vm"]!;
const description = (schema: z.ZodType): unknown => schema.meta()?.description;

test("names and versions: package gopveqemu at the given version, each language's package", () => {
  expect(spec.name).toBe("gopveqemu");
  expect(spec.version).toBe("1.2.3");
  expect(Object.keys(spec.resources)).toEqual(["gopveqemu:index:Vm"]);
  expect(Object.keys(spec.functions)).toEqual(["gopveqemu:index:getNodes", "gopveqemu:index:getVms"]);
  expect(spec.language.nodejs).toMatchObject({ packageName: "@go-pve-qemu/pulumi" });
  expect(spec.language.python).toMatchObject({ packageName: "pulumi_gopveqemu" });
  expect(spec.language.go).toMatchObject({
    importBasePath: "github.com/go-pve-qemu/pulumi-gopveqemu/sdk/go/gopveqemu",
  });
});

test("the Vm answers to the dynamic provider's type too, so a stack can move between the ways in", () => {
  expect(vm.aliases).toEqual([{ type: "pulumi-nodejs:dynamic/goPveQemu:Vm" }]);
});

test("every Vm input of the input schema, with its description; os and version required", () => {
  expect(Object.keys(vm.inputProperties)).toEqual(INPUT_KEYS);
  for (const key of INPUT_KEYS) {
    const text = description(VmInputsSchema.shape[key]);
    expect(typeof text === "string" && text.length > 10).toBe(true);
    expect([key, vm.inputProperties[key]!.description]).toEqual([key, text]);
  }
  expect(vm.requiredInputs).toEqual(["os", "version"]);
  expect(vm.inputProperties.cpu).toMatchObject({ type: "integer" });
  expect(vm.inputProperties.rebootTriggers).toMatchObject({ type: "array", items: { type: "string" } });
  expect(vm.inputProperties.os).toMatchObject({ $ref: "#/types/gopveqemu:index:Os" });
  expect(spec.types["gopveqemu:index:Os"]).toEqual({
    type: "string",
    enum: OsSchema.options.map((value) => ({ value })),
  });
  expect(vm.inputProperties.connection).toMatchObject({ $ref: "#/types/gopveqemu:index:Connection" });
  const connection = spec.types["gopveqemu:index:Connection"] as { properties: Record<string, object> };
  expect(Object.keys(connection.properties)).toEqual(["endpoint", "token", "headers", "caCert"]);
  expect(connection.properties.headers).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
});

test("every top-level key of the stored state is an output; only vmid is always there", () => {
  expect(Object.keys(vm.properties)).toEqual(Object.keys(VmStateSchema.shape));
  expect((vm as { required?: string[] }).required).toEqual(["vmid"]);
  for (const key of Object.keys(VmStateSchema.shape)) expect(vm.properties[key]!.description).toBeTruthy();
  expect(vm.properties.installLost).toMatchObject({ $ref: "#/types/gopveqemu:index:LostInstall" });
  expect(spec.types["gopveqemu:index:InstallPhase"]).toMatchObject({ type: "string" });
});

test("secrets: the password, its hash and the connection; the token; the stack's identity", () => {
  const secrets = (props: Record<string, { secret?: boolean }>) =>
    Object.keys(props).filter((k) => props[k]!.secret === true);
  expect(secrets(vm.inputProperties)).toEqual(["password", "connection"]);
  expect(secrets(vm.properties)).toEqual(["password", "passwordHash", "connection"]);
  expect(secrets(spec.config.variables)).toEqual(["token"]);
  expect(secrets(spec.provider.inputProperties)).toEqual(["token", "stackIdentity"]);
  const connection = spec.types["gopveqemu:index:Connection"] as { properties: Record<string, { secret?: boolean }> };
  expect(secrets(connection.properties)).toEqual(["token", "headers"]);
  for (const fn of Object.values(spec.functions)) expect(fn.inputs.properties.connection!.secret).toBe(true);
});

describe("the provider's configuration", () => {
  /** Every `goPveQemu:*` key readSettings asks for, whatever it finds. */
  const keysReadSettingsReads = (): string[] => {
    const asked = new Set<string>();
    readSettings((key) => {
      asked.add(key.replace(/^goPveQemu:/, ""));
      return undefined;
    }, {});
    return [...asked].sort();
  };

  test("the same keys as the dynamic provider's goPveQemu:*, each described; the provider adds stackIdentity", () => {
    const keys = Object.keys(spec.config.variables);
    expect([...keys].sort()).toEqual(keysReadSettingsReads());
    for (const key of keys) expect(spec.config.variables[key]!.description).toBeTruthy();
    expect(Object.keys(spec.provider.inputProperties)).toEqual([...keys, "stackIdentity"]);
    expect(spec.config.variables.checkTimeoutMs).toMatchObject({ type: "integer" });
    expect(spec.config.variables.allowHardStop).toMatchObject({ type: "boolean" });
  });

  test("values as config gives them (text) read as readSettings reads them", () => {
    const given = { pollIntervalMs: "250", streamIdleTimeoutMs: "9000", allowHardStop: "FALSE", offline: "yes" };
    const settings = readSettings((key) => given[key.replace(/^goPveQemu:/, "") as keyof typeof given], {});
    expect(ConfigSchema.parse(given)).toEqual({
      pollIntervalMs: settings.timing.pollIntervalMs,
      streamIdleTimeoutMs: settings.stream.idleTimeoutMs,
      allowHardStop: settings.allowHardStop,
      offline: settings.serverChecks.offline,
    });
    expect(ConfigSchema.parse({ allowHardStop: true, checkTimeoutMs: 10 })).toEqual({
      allowHardStop: true,
      checkTimeoutMs: 10,
    });
  });

  test("what readSettings refuses, the schema refuses", () => {
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      expect(() => readSettings(() => bad, {})).toThrow(/whole number of milliseconds/);
      expect(ConfigSchema.safeParse({ pollIntervalMs: bad }).success).toBe(false);
    }
    expect(ConfigSchema.safeParse({ offline: "maybe" }).success).toBe(false);
    expect(ProviderInputsSchema.safeParse({ stackIdentity: 5 }).success).toBe(false);
  });
});

test("getNodes and getVms: the Vm's connection in, the cluster's list out, every field described", () => {
  const nodes = spec.functions["gopveqemu:index:getNodes"]!;
  const vms = spec.functions["gopveqemu:index:getVms"]!;
  expect(nodes.inputs.properties.connection).toMatchObject({ $ref: "#/types/gopveqemu:index:Connection" });
  expect(nodes.outputs).toMatchObject({
    properties: { nodes: { type: "array", items: { $ref: "#/types/gopveqemu:index:NodeInfo" } } },
    required: ["nodes"],
  });
  expect(vms.outputs).toMatchObject({
    properties: { vms: { type: "array", items: { $ref: "#/types/gopveqemu:index:VmInfo" } } },
    required: ["vms"],
  });
  for (const [token, schema] of [
    ["NodeInfo", NodeInfoSchema],
    ["VmInfo", VmInfoSchema],
  ] as const) {
    const type = spec.types[`gopveqemu:index:${token}`] as { properties: Record<string, { description?: string }> };
    expect(Object.keys(type.properties)).toEqual(Object.keys(schema.shape));
    for (const [key, field] of Object.entries(schema.shape)) {
      expect(type.properties[key]!.description).toBe(description(field));
    }
  }
});

describe("what Pulumi's types cannot say fails with the property's path", () => {
  const convert = (schema: z.ZodObject) => objectSpec(schema, "input", new TypeRegistry("p"), "T");

  test("an object or an enum without a title (its type's name)", () => {
    expect(() => convert(z.object({ a: z.object({ b: z.string() }) }))).toThrow(
      'T.a: an object type needs a name: .meta({ title: "PascalCaseName" }) on its zod schema',
    );
    expect(() => convert(z.object({ a: z.array(z.enum(["x"])) }))).toThrow("T.a[]: an enum type needs a name");
    expect(() => convert(z.object({ a: z.enum(["x"]).meta({ title: "lower" }) }))).toThrow("T.a: an enum type");
  });

  test("a union", () => {
    expect(() => convert(z.object({ a: z.union([z.string(), z.number()]) }))).toThrow(
      "T.a: a union or reference has no Pulumi type",
    );
  });

  test("one name for two different types", () => {
    const one = z.object({ b: z.string() }).meta({ title: "Same" });
    const other = z.object({ c: z.number() }).meta({ title: "Same" });
    expect(() => convert(z.object({ a: one, d: other }))).toThrow(
      'T.d: the type name "Same" is given to two different types',
    );
    // The same type twice is one type.
    const types = new TypeRegistry("p");
    objectSpec(z.object({ a: one, d: one }), "input", types, "T");
    expect(Object.keys(types.types)).toEqual(["p:index:Same"]);
  });

  test("an output zod cannot describe (a transform's result)", () => {
    const schema = z.object({ a: z.string().transform((s) => s.length) });
    expect(() => objectSpec(schema, "output", new TypeRegistry("p"), "T")).toThrow(/^T: .*Transforms/);
  });
});
