// One install as the server holds it (model.Config after binding), shared by
// both halves of the install flow (install.ts, install-vm.ts).

export interface InstallJob {
  id: number;
  autoId: boolean;
  requestedName: string;
  name: string;
  node: string;
  os: string;
  version: string;
  cpu: number;
  ram: number;
  disk: string;
  user: string;
  passwd: string;
  /** With /24. */
  ip: string;
  storage: string;
}

/** How an install ended, for the counters. */
export type Outcome = "completed" | "error" | "silent";
