// What every operation uses: the context it is given, redaction, the words of
// messages, waiting, and step progress. It imports only the model. This index
// is the layer's only entry point.
export { DEFAULT_TIMING, clockOf, openBoundsOf, timingOf } from "./context";
export type { LifecycleContext, Reporter, ResolvedConnection, Timing } from "./context";
export { LOSS_TEXT, duration, vmLabel } from "./labels";
export { poll, waitFor } from "./poll";
export type { PollRound } from "./poll";
export { installProgress, streamProgress } from "./progress";
export { errorText, redactor, safeCause } from "./redact";
export type { Redactor } from "./redact";
export { sessionOf } from "./session";
export { ProcessScope } from "./process-scope";
export { NO_DOWNTIME_RULES } from "./downtime-budget";
export type { DowntimeRules } from "./downtime-budget";
export { planScopes } from "./downtime-plan";
export type { InstallTicket } from "./install-gates";
export type { NameHold } from "./name-holds";
