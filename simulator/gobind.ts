// gin's ShouldBindJSON: decode into a Go struct (encoding/json rules: keys
// matched exactly then case-insensitively, null leaves a field alone, the
// first type mismatch is the error), then go-playground/validator tags. The
// error texts are the ones the server pastes into its answers.
import { decodeGo, type GoValue } from "./gojson";

type Rule =
  | { tag: "required" }
  | { tag: "oneof"; values: readonly string[] }
  | { tag: "min"; n: number }
  | { tag: "max"; n: number };

interface FieldSpec {
  /** json tag name */
  json: string;
  /** Go field name */
  go: string;
  type: "int" | "string";
  rules?: readonly Rule[];
}

export interface StructSpec {
  /** Type name in error texts: `Config`, `reqBody`. */
  name: string;
  /** Qualified type name: `model.Config`, `handler.reqBody`. */
  qualified: string;
  fields: readonly FieldSpec[];
}

type Bound = Record<string, string | number>;
export type BindResult = { ok: true; value: Bound } | { ok: false; error: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function kindWord(v: GoValue): string {
  return v.kind === "bool" ? "bool" : v.kind;
}

export function bindJson(spec: StructSpec, body: string): BindResult {
  const decoded = decodeGo(body);
  if (!decoded.ok) return decoded;
  const top = decoded.value;
  const out: Bound = {};
  for (const f of spec.fields) out[f.json] = f.type === "int" ? 0 : "";

  if (top.kind !== "object") {
    if (top.kind === "null") return validate(spec, out);
    return { ok: false, error: `json: cannot unmarshal ${kindWord(top)} into Go value of type ${spec.qualified}` };
  }

  let firstError: string | null = null;
  for (const [key, value] of top.entries) {
    const field =
      spec.fields.find((f) => f.json === key) ?? spec.fields.find((f) => f.json.toLowerCase() === key.toLowerCase());
    if (!field || value.kind === "null") continue;
    const mismatch = (word: string): void => {
      firstError ??= `json: cannot unmarshal ${word} into Go struct field ${spec.name}.${field.json} of type ${field.type}`;
    };
    if (field.type === "string") {
      if (value.kind === "string") out[field.json] = value.value;
      else mismatch(kindWord(value));
    } else if (value.kind === "number") {
      const n = /^-?\d+$/.test(value.raw) ? BigInt(value.raw) : null;
      if (n === null || n < INT64_MIN || n > INT64_MAX) mismatch(`number ${value.raw}`);
      else out[field.json] = Number(n);
    } else {
      mismatch(kindWord(value));
    }
  }
  if (firstError !== null) return { ok: false, error: firstError };
  return validate(spec, out);
}

function validate(spec: StructSpec, value: Bound): BindResult {
  const errors: string[] = [];
  for (const f of spec.fields) {
    const v = value[f.json];
    for (const rule of f.rules ?? []) {
      let failed = false;
      if (rule.tag === "required") failed = v === 0 || v === "";
      else if (rule.tag === "oneof") failed = !rule.values.includes(String(v));
      else if (rule.tag === "min") failed = typeof v === "number" ? v < rule.n : String(v).length < rule.n;
      else if (rule.tag === "max") failed = typeof v === "number" ? v > rule.n : String(v).length > rule.n;
      if (failed) {
        errors.push(`Key: '${spec.name}.${f.go}' Error:Field validation for '${f.go}' failed on the '${rule.tag}' tag`);
        break;
      }
    }
  }
  return errors.length ? { ok: false, error: errors.join("\n") } : { ok: true, value };
}

/** strconv.Atoi: optional sign, decimal digits; out of int64 range clamps (with an error). */
export function goAtoi(s: string): { value: number; ok: boolean } {
  if (!/^[+-]?\d+$/.test(s)) return { value: 0, ok: false };
  const n = BigInt(s);
  if (n > INT64_MAX) return { value: Number(INT64_MAX), ok: false };
  if (n < INT64_MIN) return { value: Number(INT64_MIN), ok: false };
  return { value: Number(n), ok: true };
}

/** model.Config, the install body. */
export const INSTALL_BODY: StructSpec = {
  name: "Config",
  qualified: "model.Config",
  fields: [
    { json: "id", go: "ID", type: "int" },
    { json: "name", go: "Name", type: "string" },
    { json: "node", go: "Node", type: "string" },
    { json: "storage", go: "Storage", type: "string" },
    {
      json: "os",
      go: "OS",
      type: "string",
      rules: [{ tag: "required" }, { tag: "oneof", values: ["debian", "ubuntu", "rockylinux"] }],
    },
    { json: "version", go: "Version", type: "string", rules: [{ tag: "required" }] },
    { json: "cpu", go: "CPU", type: "int" },
    { json: "disk", go: "Disk", type: "string" },
    { json: "ram", go: "RAM", type: "int" },
    { json: "ip", go: "IP", type: "string" },
    { json: "gateway", go: "Gateway", type: "string" },
    { json: "user", go: "User", type: "string" },
    { json: "passwd", go: "Passwd", type: "string" },
    { json: "pubkey", go: "Pubkey", type: "string" },
  ],
};

export const CPU_BODY: StructSpec = {
  name: "reqBody",
  qualified: "handler.reqBody",
  fields: [
    { json: "cpu", go: "CPU", type: "int", rules: [{ tag: "required" }, { tag: "min", n: 1 }, { tag: "max", n: 32 }] },
  ],
};

export const MEMORY_BODY: StructSpec = {
  name: "reqBody",
  qualified: "handler.reqBody",
  fields: [
    {
      json: "memory",
      go: "Memory",
      type: "int",
      rules: [{ tag: "required" }, { tag: "min", n: 512 }, { tag: "max", n: 32768 }],
    },
  ],
};

export const DISK_BODY: StructSpec = {
  name: "reqBody",
  qualified: "handler.reqBody",
  fields: [{ json: "disk", go: "Disk", type: "string" }],
};

export const NODE_BODY: StructSpec = {
  name: "reqBody",
  qualified: "handler.reqBody",
  fields: [{ json: "node", go: "Node", type: "string", rules: [{ tag: "required" }] }],
};
