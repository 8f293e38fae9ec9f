// Recovery: a stack's pending Vm creates (what an interrupted
// `pulumi up` began), resolved on evidence before the next `up`, and cleared
// once it recorded them. Used by the command line (`go-pve-qemu-pulumi
// recover`), the GitOps pipeline and Automation API scripts.
export { clearResolvedPendingCreates, recoverPendingCreates, upWithRecovery } from "./recover-run";
export type { RecoverOptions, RecoverReport } from "./recover-run";
export type { Resolution } from "./recover-plan";
