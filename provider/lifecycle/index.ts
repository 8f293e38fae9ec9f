// The lifecycle of a go-pve-qemu VM as plain async functions. Nothing here
// knows Pulumi: the glue in provider/resource adapts these to a dynamic
// provider (and turns every PartialError into the engine's partial-state
// errors).
export { UNKNOWN } from "./model";
export type { ConnectionInput, DeclaredInputs, VmInputs } from "./model";
export { check } from "./check";
export { ServerChecks } from "./check";
// The data sources and discover fail as the checks warn: `the go-pve-qemu server at <url> cannot be reached (...)`.
export { describe as listProblem } from "./check";
export { endpointKey, resolveConnection } from "./model";
export type { VmState } from "./model";
export { diff } from "./plan";
export { create } from "./create";
export { read } from "./read";
export { update } from "./update";
export { remove } from "./delete";
export { LifecycleError } from "./model";
export { PartialError } from "./model";
export { DEFAULT_TIMING } from "./core";
export type { Reporter, LifecycleContext, Timing } from "./core";
export type { ResolvedConnection, ConnectionDefaults } from "./model";
export { defaultJournalDir, fileJournal } from "./model";
export type { InstallJournal } from "./model";
