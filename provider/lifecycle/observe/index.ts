// The one read of the server: a VM as the list shows it (an Observation),
// and the Look the decision tables take. This index is the layer's one
// entry point.
export { diskFromList, memoryFromList } from "./listing";
export { exists, lookOf, runs } from "./look";
export type { Look } from "./look";
export { lookAt, unreadable } from "./look-at";
export type { ObservedLook } from "./look-at";
export { RUNNING, STOPPED, isDisabled, observe, observeFor, observedFields, powerWord } from "./observe";
export type { Observation } from "./observe";
