// The engine's calls for a Vm, whichever door they come through: the dynamic
// provider (provider/resource) or the resource plugin (provider/plugin). Each
// door only turns its own wire shapes into these calls' property bags and
// back; everything else (settings, clients, the journal, the engine log,
// cancellation, partial failures) is one code path for both.
export { check, create, diff, read, remove, update } from "./engine-calls";
export type { Bag } from "./engine-bags";
export { applySettings, configure, configured, serverNodeOf } from "./provider-setup";
export { claimProcessCancel } from "./cancel";
export { newIdentity } from "./make-identity";
