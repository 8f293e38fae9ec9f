// The client layer's public surface, and its only entry point: everything the
// lifecycle and the rest of the provider may use of the client. It knows
// nothing of Pulumi.
export { GoPveQemuClient } from "./client";
export { DEFAULT_STREAM_TIMEOUTS } from "./pool";
export { ERROR_CODES } from "./error-codes";
export type { ErrorCode } from "./error-codes";
export type { GoPveQemuApi } from "./api";
export { ServerWritesRegistry, shareWindowMs } from "./list-cache";
export {
  CancelledError,
  ConnectionError,
  HttpStatusError,
  OperationFailedError,
  ResponseShapeError,
  isRefused,
} from "./errors";
export type { AnswerBody } from "./errors";
export { OsSchema, SUPPORTED_VERSIONS } from "./schemas";
export type { InstallRequest, NodeEntry, Os, VmEntry, VmList } from "./schemas";
export type { FailureShape, InstallFacts, InstallSuccess, OperationEvent, StepOperationEvent } from "./stream/types";
export {
  DEFAULT_OPEN_BOUNDS,
  INSTALL_STEPS,
  PHASES,
  SSH_KEY_MISSING,
  STEP,
  UNNAMED_PHASE,
  cleanupBound,
  isRecoverableSshKeyError,
  phaseBounds,
  phaseIndex,
  phaseOfEvent,
} from "./stream/wire";
export type { InstallStep, OpenBounds, Phase } from "./stream/wire";
