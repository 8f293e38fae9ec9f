// The provider's configuration as the package schema declares it: the keys a
// plugin's users set with `pulumi config set gopveqemu:<key>` or give an
// explicit provider, with their descriptions. Made from the settings'
// declaration (declared.ts), the same keys and kinds the reader reads under
// either namespace.
import { z } from "zod";
import { SETTINGS } from "./declared";
import type { SettingKey } from "./declared";
import { KIND_TYPES } from "./kinds";

type Shape = { [K in SettingKey]: z.ZodOptional<(typeof KIND_TYPES)[(typeof SETTINGS)[K]["kind"]]> };

function shape(): Shape {
  const entries = Object.entries(SETTINGS).map(([key, s]) => {
    const meta = { description: s.description, ...("secret" in s && s.secret ? { secret: true } : {}) };
    return [key, KIND_TYPES[s.kind].optional().meta(meta)];
  });
  return Object.fromEntries(entries) as Shape;
}

export const ConfigSchema = z.object(shape());

/**
 * The provider's inputs: its configuration, and the stack's identity, which
 * the provider makes once and keeps from the old inputs (no user sets it).
 */
export const ProviderInputsSchema = ConfigSchema.extend({
  stackIdentity: z
    .string()
    .optional()
    .meta({ description: "The stack's identity, made once by the provider; never set by hand.", secret: true }),
});
