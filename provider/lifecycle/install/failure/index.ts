// An install call that did not end in success: how it failed, what the
// decision table makes of it, and what is done then. This index is the only
// way into the folder.
export { handleInstallFailure } from "./failure";
export type { AttemptEnd } from "./failure";
