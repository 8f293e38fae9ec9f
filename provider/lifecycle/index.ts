// The lifecycle of a go-pve-qemu VM as plain async functions, and its one
// entry point for the rest of the provider. Nothing here knows Pulumi: the glue
// adapts these to a dynamic provider (and turns every PartialError into the
// engine's partial-state errors). Inside, each concern is a layer of its own,
// lowest first: model, core, observe, power, delete, plan, install, check,
// read, update, create; a layer uses only the layers below it.
export { check, ServerChecks } from "./check";
// The data sources and discover fail as the checks warn: `the go-pve-qemu server at <url> cannot be reached (...)`.
export { describe as listProblem } from "./check";
export { diff } from "./plan";
export { create } from "./create";
export { foreseeSettle, read } from "./read";
export { update } from "./update";
export { remove } from "./delete";
export { DEFAULT_TIMING, ProcessScope, planScopes } from "./core";
export type { DowntimeRules, LifecycleContext, Reporter, Timing } from "./core";
export {
  LifecycleError,
  PartialError,
  UNKNOWN,
  VmInputsSchema,
  VmStateSchema,
  defaultJournalDir,
  endpointKey,
  fileJournal,
  fileServerNodes,
  resolveConnection,
} from "./model";
export type {
  ConnectionDefaults,
  ConnectionInput,
  DeclaredInputs,
  InstallJournal,
  ResolvedConnection,
  ServerNodes,
  VmInputs,
  VmState,
} from "./model";
