// The lifecycle of a go-pve-qemu VM as plain async functions. Nothing here
// knows Pulumi: the glue in provider/resource adapts these to a dynamic
// provider (and turns every PartialError into the engine's partial-state
// errors).
export { UNKNOWN, isUnknown, VmInputsSchema, INPUT_KEYS, LIMITS, SERVER_DEFAULTS, defaultUser } from "./inputs";
export type { VmInputs, ConnectionInput } from "./inputs";
export { check } from "./check";
export type { CheckFailure, CheckResult, CheckOptions } from "./check";
export { ServerChecks } from "./server-checks";
export type { ServerCheckOptions } from "./server-checks";
export { VmStateSchema, parseState } from "./state";
export type { VmState, Desired, Clamp } from "./state";
export { diff } from "./diff";
export type { DiffResult } from "./diff";
export { planUpdate, describeStep } from "./plan";
export type { Step } from "./plan";
export { create, installRequest } from "./create";
export type { CreateResult } from "./create";
export { read } from "./read";
export type { ReadResult } from "./read";
export { update } from "./update";
export { remove } from "./delete";
export { PartialError, PartialCreateError, PartialUpdateError, LifecycleError, CODES } from "./errors";
export type { ErrorCode } from "./errors";
export { derivedName, isDerivedName } from "./identity";
export { settle, LostInstallSchema } from "./decide";
export { settleState } from "./settle";
export { lookOf } from "./look";
export type { Look } from "./look";
export type { Settled } from "./settle";
export type { LostInstall } from "./decide";
export { DEFAULT_TIMING } from "./context";
export type { Reporter, LifecycleContext, Timing } from "./context";
export { resolveConnection, NO_ENDPOINT_HELP } from "./connection";
export type { ResolvedConnection, ConnectionDefaults, ConnectionSettings } from "./connection";
export { INSTALL_STEPS } from "./progress";
