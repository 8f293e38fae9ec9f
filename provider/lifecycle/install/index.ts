// Installing a VM: the stream, the verdict on every way it can fail, following
// a lost stream, taking over an interrupted install, and recording the
// outcome. This index is the layer's one entry point.
//
// The folder:
//   run/      the run of one install stream (install-run.ts) and its helpers:
//             the request's body, the journal it writes, the power watch.
//   failure/  an install call that did not end in success: classify it,
//             decide (rules/), act (retry, follow, keep the VM, or an error).
//   rules/    the decision tables, pure: what is known -> a verdict.
//   the rest  confirm a success, follow a lost stream (follow, install-watch,
//             timeline, new-vm), take over an interrupted create
//             (interrupted, identity, leftovers), settle an unconfirmed
//             install (settle), record the state (record, job).
//
// What each name is:
//   Observation   (observe/) the server's answers about one VM at one moment:
//                 its list entry, whether it is ours by name, its power word.
//   Look          (observe/) the one name for what was seen of a VM at one
//                 moment, as the decision tables tell it apart: unreadable,
//                 absent, other, disabled, present. Made from an Observation
//                 (lookOf), or from a failed read (unreadable).
//   ObservedLook  (observe/) a Look with the Observation it was made from
//                 (lookAt): the tables take the Look, the state the detail.
//   FollowMemory  what a follow remembers across its looks (seen, ran,
//                 stopped after it ran, rebooted, the server restarted): no
//                 view at one moment, so a name of its own.
//   FollowedVm    the VM a follow follows: its VMID once known, and a look.
//   StreamProgress what the install's stream has shown so far (facts, step,
//                 phase): what a failure of it is judged by.
//   JournalFacts  what this machine's install journal holds of an install.
//   StateBasis    what a recorded state is made from: the stream's facts and
//                 an Observation.
//   *Verdict      what a decision table answers, named for the decision:
//                 LostVerdict (decideLost), FailureVerdict (decideFailure),
//                 RestartVerdict (restartVerdict), SettleVerdict (settled),
//                 UnconfirmedVerdict (planUnconfirmed); update's
//                 OperationVerdict (decideOperation) is one more.
//   AttemptEnd    what one install attempt ends in once its failure was
//                 handled (a create result, or a retry): no verdict, what
//                 was done with one.
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
