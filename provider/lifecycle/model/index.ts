// The lifecycle's model: the inputs and their rules, the stored state, the
// connection settings, VM names, the install journal, passwords, and the
// errors every layer throws. It imports nothing of the other layers. This index
// is the layer's only entry point.
export { NO_ENDPOINT_HELP, connectionSecrets, endpointKey, resolveConnection } from "./connection";
export type { ConnectionDefaults, ResolvedConnection } from "./connection";
export { currentDisk, nodeChange, sizeChange, targetRunning, targetUser, triggersChanged } from "./desired";
export {
  CREDENTIALS_HELP,
  LIMITS,
  SERVER_DEFAULTS,
  UNKNOWN,
  carriesCredentials,
  containsUnknown,
  defaultUser,
  isHttpUrl,
  isUnknown,
  show,
  withoutCredentials,
} from "./input-rules";
export { INPUT_BEHAVIOUR } from "./input-behaviour";
export type { ChangingInput } from "./input-behaviour";
export { INPUT_KEYS, VmInputsSchema } from "./inputs";
export type { ConnectionInput, DeclaredInputs, VmInputs } from "./inputs";
export { defaultJournalDir, fileJournal } from "./journal";
export type { InstallJournal, JournalEntry } from "./journal";
export { fileServerNodes } from "./server-node";
export type { ServerNodes } from "./server-node";
export { CODES, LifecycleError } from "./lifecycle-error";
export type { LostInstall } from "./lost-install";
export { PartialCreateError, PartialError, PartialUpdateError } from "./partial-error";
export { generatePassword, hashPassword, passwordMatches } from "./password";
export { VmStateSchema, desiredOf, dropUndefined, nameFromVmName, parseState, realName, vmidFromId } from "./state";
export type { Desired, VmState } from "./state";
export { derivedName, readStackName, stackName, wasDerivedName } from "./vm-names";
