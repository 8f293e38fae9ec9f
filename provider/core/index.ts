// The provider core, behind both ways in (the dynamic provider and the
// resource plugin) and the program's data sources: one ProviderCore per
// process, made by `configure`, whose methods take what both ways in know
// (a URN, the stack's identity, inputs and state as plain bags) and answer
// plainly. It knows nothing of Pulumi: each way in gives it the engine's
// marker of unknowns and the engine's Log RPC.
export { configure, ProviderCore } from "./provider-core";
export type { CoreOptions } from "./provider-core";
export type { Bag } from "./bag";
export { PartialFailure, onWire } from "./partial-failure";
export { check, create, diff, outputsOf, plain, read, remove, update } from "./vm-calls";
export type { Checked, Diffed, PropertyChange, ReadAnswer } from "./vm-calls";
export { ClusterReadFailure } from "./cluster-reads";
export { connectionKey } from "./clients";
export { configIndex } from "./config-index";
export { newIdentity } from "./make-identity";
export { dynamicHostCancelWatch, pluginCancelWatch } from "./process-cancel";
export { watchCancel } from "./cancel-watch";
export type { OperationTimeout, TimedOperation } from "./deadline";
export type { CancelSources, CancelWatch } from "./cancel-watch";
export type { LogTransport, Severity } from "./engine-log";
