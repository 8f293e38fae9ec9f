// The run of one install stream (install-run.ts) and its helpers beside it:
// the request's body, the journal it writes, the watch of the VM's power
// while the stream is read. This index is the only way into the folder.
export { runInstall } from "./install-run";
export type { StreamProgress } from "./install-run";
export { journalInstall } from "./install-journal";
export { installRequest, sendsNode } from "./install-request";
export { powerTurn } from "./power-watch";
