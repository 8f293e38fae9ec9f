// The install's decision tables: pure functions from what is known (how the
// call failed, the timeline, what the VM shows, the time) to a verdict. No
// server, no clock: the rest of install/ asks the server and acts on the
// answers. This index is the only way into the folder.
export { decideFailure } from "./failure-rules";
export type { Failure, FailureVerdict } from "./failure-rules";
export { decideLost, phaseShown, remember, settled } from "./lost-rules";
export type { FollowMemory } from "./lost-rules";
export type { LostVerdict } from "./verdicts";
export { planUnconfirmed } from "./unconfirmed-rules";
export type { UnconfirmedVerdict } from "./unconfirmed-rules";
