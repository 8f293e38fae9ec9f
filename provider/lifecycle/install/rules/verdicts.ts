// The answers of the install's decision tables, one family: each table
// answers a verdict named for what it decides, and the narrower ones
// (RestartVerdict, FailureVerdict) are made from this, the widest: what the
// table after a lost stream answers (decideLost).

export type LostVerdict =
  /** record success; `inferred` when the completion itself was never seen */
  | { kind: "done"; inferred: boolean; why?: string }
  /** keep the VM in state: the install failed and left it, or its outcome is not known yet */
  | { kind: "partial"; installState: "failed" | "unconfirmed"; why: string }
  /** nothing of this install exists: a plain error, nothing in state */
  | { kind: "failed"; why: string }
  /** nothing was made and a second try can work */
  | { kind: "retry"; why: string; advice: string }
  /** ask again later, until `until` at the latest */
  | { kind: "follow"; why: string; until: number }
  /** it cannot be known, and there is no VMID to record */
  | { kind: "unknown"; why: string };
