// The client layer's public surface. It knows nothing of Pulumi.
export { GoPveQemuClient } from "./client";
export type {
  ConnectionOptions,
  GoPveQemuApi,
  InstallOptions,
  PowerStatus,
  RequestOptions,
  StreamOptions,
} from "./api";
export {
  CancelledError,
  ConnectionError,
  GoPveQemuError,
  HttpStatusError,
  OperationFailedError,
  ResponseShapeError,
  SHAPE_CODES,
  type ErrorCode,
  type ErrorContext,
} from "./errors";
export * from "./schemas";
export * from "./stream";
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_STREAM_OVERALL_TIMEOUT_MS,
} from "./connection";
