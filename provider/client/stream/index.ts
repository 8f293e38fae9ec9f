// The operation reader's public surface.
export type {
  BareOperationEvent,
  FailureShape,
  InstallFacts,
  InstallSuccess,
  OperationEvent,
  OperationKind,
  OperationSuccess,
  StepOperationEvent,
  StreamWarning,
} from "./types";
export { readOperation, DEFAULT_CLOSE_GRACE_MS, type ByteSource, type ReadOperationOptions } from "./reader";
export { OperationPipeline, type PipelineOptions } from "./pipeline";
export type { Outcome, OutcomeFailure, OutcomeOptions, StreamEnd } from "./outcome";
export { Watchdog, SYSTEM_CLOCK, type StopCause, type WatchdogClock, type WatchdogOptions } from "./liveness";
export { decodeFrame, recoverTemplate } from "./decode";
