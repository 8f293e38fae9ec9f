// The kinds of setting: for each, its zod type (the config schema's, which
// the package schema is made from) and how the reader parses the text that
// stack config or the environment gives, with a message that names the key
// and what is allowed. Config values arrive as strings, so both coerce.
import { z } from "zod";
import { VmInputsSchema } from "../lifecycle";

/** A whole number of milliseconds > 0; config gives it as text. */
const Millis = z.coerce.number().int().positive();
/** A number of VMs >= 1; config gives it as text. */
const VmCount = z.coerce.number().int().positive();
const TRUE = ["true", "1", "yes"];
const FALSE = ["false", "0", "no"];
/** true/false as the reader reads it: a boolean, or its words in any case. */
const Flag = z.union([z.boolean(), z.stringbool({ truthy: TRUE, falsy: FALSE, case: "insensitive" })]);

export const KIND_TYPES = {
  text: z.string(),
  millis: Millis,
  flag: Flag,
  count: VmCount,
  counts: z.record(z.string(), VmCount),
} as const;

export type Kind = keyof typeof KIND_TYPES;
/** What the reader makes of a setting of each kind. */
export interface KindValue {
  text: string;
  millis: number;
  flag: boolean;
  count: number;
  counts: Record<string, number>;
}

const COUNT_RULE = "a whole number of VMs >= 1";

/** Parses `raw` (stack config's text, or the environment's) for the key named `where`; throws saying what is allowed. */
export const PARSE: { [K in Kind]: (raw: string, where: string, ns: string, key: string) => KindValue[K] } = {
  text: (raw) => raw,
  millis: (raw, where) => {
    const parsed = Millis.safeParse(raw);
    if (!parsed.success)
      throw new Error(`${where}: "${raw}" is not allowed; expected a whole number of milliseconds > 0`);
    return parsed.data;
  },
  flag: (raw, where) => {
    const v = raw.trim().toLowerCase();
    if (TRUE.includes(v)) return true;
    if (FALSE.includes(v)) return false;
    throw new Error(`${where}: "${raw}" is not allowed; expected true or false`);
  },
  count: (raw, where) => {
    const n = wholeCount(raw);
    if (n === undefined) throw new Error(`${where}: "${raw}" is not allowed; expected ${COUNT_RULE}`);
    return n;
  },
  counts: (raw, where, ns, key) => countsOf(raw, where, ns, key),
};

/** An object by group: `pulumi config set --path '<ns>:<key>.web' 3` stores one, which arrives as JSON text. */
function countsOf(raw: string, where: string, ns: string, key: string): Record<string, number> {
  const example = `e.g. {"web": 3}, or pulumi config set --path '${ns}:${key}.web' 3`;
  const refused = new Error(
    `${where}: "${raw}" is not allowed; expected an object of group names to ${COUNT_RULE}, ${example}`,
  );
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw refused;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw refused;
  const out: Record<string, number> = {};
  // A key the Vms' downtimeGroup could not hold would cap no VM: judged by that input's own rule.
  for (const [group, v] of Object.entries(value)) {
    if (!VmInputsSchema.shape.downtimeGroup.safeParse(group).success) {
      throw new Error(
        `${where}: "${group}" is not a downtime group name; use letters, digits and hyphens (not first or last), at most 63 characters, as in the Vms' downtimeGroup`,
      );
    }
    const n = wholeCount(v);
    if (n === undefined)
      throw new Error(`${where}: group "${group}" has ${JSON.stringify(v)}; expected ${COUNT_RULE}, ${example}`);
    out[group] = n;
  }
  return out;
}

/** A whole number >= 1, given as a number or as its digits (config text, a --path value); nothing else. */
function wholeCount(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}
