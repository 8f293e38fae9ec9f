// The lifecycle of a go-pve-qemu VM as plain async functions. Nothing here
// knows Pulumi: the glue in provider/resource adapts these to a dynamic
// provider (and turns every PartialError into the engine's partial-state
// errors).
export { UNKNOWN } from "./input-rules";
export type { ConnectionInput, DeclaredInputs, VmInputs } from "./inputs";
export { check } from "./check";
export { ServerChecks } from "./server-checks";
// The data sources and discover fail as the checks warn: `the go-pve-qemu server at <url> cannot be reached (...)`.
export { describe as listProblem } from "./server-checks";
export { endpointKey, resolveConnection } from "./connection";
export type { VmState } from "./state";
export { diff } from "./diff";
export { create } from "./create";
export { read } from "./read";
export { update } from "./update";
export { remove } from "./delete";
export { LifecycleError } from "./lifecycle-error";
export { PartialError } from "./partial-error";
export { DEFAULT_TIMING } from "./context";
export type { Reporter, LifecycleContext, Timing } from "./context";
export type { ResolvedConnection, ConnectionDefaults } from "./connection";
export { defaultJournalDir, fileJournal } from "./journal";
export type { InstallJournal } from "./journal";
