// zod schemas as Pulumi package-schema types. zod gives JSON Schema
// (z.toJSONSchema); this maps that JSON Schema onto Pulumi's type system:
// primitives, arrays, maps, and named object and enum types (named by the
// zod schema's `title`), with each property's description and secret mark
// taken from its zod metadata (`.meta({ description, secret: true })`).
import { z } from "zod";

/** A type reference or an inline type, as Pulumi's schema writes one. */
export interface TypeSpec {
  type?: string;
  $ref?: string;
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
}
export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
}
export interface ObjectSpec {
  properties: Record<string, PropertySpec>;
  required?: string[];
}
interface ObjectTypeSpec extends ObjectSpec {
  type: "object";
  description?: string;
}
interface EnumTypeSpec {
  type: "string" | "integer" | "number";
  enum: { value: string | number }[];
  description?: string;
}
export type NamedTypeSpec = ObjectTypeSpec | EnumTypeSpec;

type Json = Record<string, unknown>;

/** The named types one package collects, each under its token `<package>:index:<title>`. */
export class TypeRegistry {
  readonly types: Record<string, NamedTypeSpec> = {};
  constructor(private readonly pkg: string) {}

  /** Registers a named type (the same name twice must mean the same type) and refers to it. */
  ref(name: string, spec: NamedTypeSpec, where: string): TypeSpec {
    const token = `${this.pkg}:index:${name}`;
    const known = this.types[token];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(spec)) {
      throw new Error(`${where}: the type name ${JSON.stringify(name)} is given to two different types`);
    }
    this.types[token] = spec;
    return { $ref: `#/types/${token}` };
  }
}

/**
 * The properties of a zod object as Pulumi properties. `io` picks the side
 * of a transform: "input" for what a program gives, "output" for what the
 * provider returns (a coerced number is then a number, a string-or-boolean
 * flag a boolean).
 */
export function objectSpec(
  schema: z.ZodObject,
  io: "input" | "output",
  types: TypeRegistry,
  where: string,
): ObjectSpec {
  let json: Json;
  try {
    json = z.toJSONSchema(schema, { io, unrepresentable: "throw", target: "draft-2020-12" }) as Json;
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
  }
  return propertiesOf(json, types, where);
}

function propertiesOf(json: Json, types: TypeRegistry, where: string): ObjectSpec {
  const properties: Record<string, PropertySpec> = {};
  for (const [key, value] of Object.entries((json.properties ?? {}) as Record<string, Json>)) {
    const spec: PropertySpec = typeOf(value, types, `${where}.${key}`);
    if (typeof value.description === "string") spec.description = value.description;
    if (value.secret === true) spec.secret = true;
    properties[key] = spec;
  }
  const required = (json.required ?? []) as string[];
  return required.length > 0 ? { properties, required } : { properties };
}

function typeOf(json: Json, types: TypeRegistry, where: string): TypeSpec {
  if (Array.isArray(json.enum)) return enumOf(json, types, where);
  if (Array.isArray(json.type) || json.anyOf !== undefined || json.oneOf !== undefined || json.$ref !== undefined) {
    throw new Error(`${where}: a union or reference has no Pulumi type; give it one type (${JSON.stringify(json)})`);
  }
  switch (json.type) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { type: json.type };
    case "array":
      return { type: "array", items: typeOf((json.items ?? {}) as Json, types, `${where}[]`) };
    case "object":
      return objectOf(json, types, where);
    default:
      // No JSON Schema type (z.unknown(), z.any()): any value.
      return { $ref: "pulumi.json#/Any" };
  }
}

function objectOf(json: Json, types: TypeRegistry, where: string): TypeSpec {
  if (json.properties === undefined) {
    const values = json.additionalProperties;
    const of = typeof values === "object" && values !== null ? (values as Json) : {};
    return { type: "object", additionalProperties: typeOf(of, types, `${where}{}`) };
  }
  const name = titleOf(json, where, "object");
  return types.ref(name, { type: "object", ...propertiesOf(json, types, where) }, where);
}

function enumOf(json: Json, types: TypeRegistry, where: string): TypeSpec {
  const values = json.enum as (string | number)[];
  const kind = typeof values[0] === "string" ? "string" : Number.isInteger(values[0]) ? "integer" : "number";
  return types.ref(titleOf(json, where, "enum"), { type: kind, enum: values.map((value) => ({ value })) }, where);
}

function titleOf(json: Json, where: string, what: string): string {
  if (typeof json.title !== "string" || !/^[A-Z][A-Za-z0-9]*$/.test(json.title)) {
    throw new Error(`${where}: an ${what} type needs a name: .meta({ title: "PascalCaseName" }) on its zod schema`);
  }
  return json.title;
}
