// Provider-wide settings, read from stack config and the environment: one
// door for the dynamic provider and for the data sources, which load it only
// when first called (it brings zod).
export { DYNAMIC_NS, readSettings } from "./settings";
export type { ProviderSettings } from "./settings";
export { ConfigSchema, ProviderInputsSchema } from "./config-schema";
