// Installing a VM: the stream, the verdict on every way it can fail, following
// a lost stream, taking over an interrupted install, and recording the
// outcome. This index is the room's only door.
export { confirm } from "./confirm";
export { handleInstallFailure } from "./failure";
export type { AttemptEnd } from "./failure";
export { beforeInstall, claimOf } from "./identity";
export { installRequest, journalInstall, runInstall } from "./run";
export { awaitPending, takeOver } from "./interrupted";
export { removeLeftovers, sweepLeftovers } from "./leftovers";
export { sameNameOf } from "./new-vm";
export { InstallWatch } from "./install-watch";
export type { FollowedVm } from "./install-watch";
export type { LostVerdict } from "./rules";
export type { CreateResult, InstallJob } from "./job";
export { settleTime, settleUnconfirmed, withTimeline } from "./settle";
export { planUnconfirmed } from "./rules";
export type { UnconfirmedVerdict } from "./rules";
