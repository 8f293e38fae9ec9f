// Provider-wide settings, read from stack config and the environment, for
// both ways in and for the data sources, which load them only when first
// called (they bring zod).
export { DYNAMIC_NS, readSettings } from "./settings";
export type { ProviderSettings } from "./settings";
export { ConfigSchema, ProviderInputsSchema } from "./config-schema";
export { settingProblems } from "./setting-problems";
