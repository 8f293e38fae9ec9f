// One create's install, as every part of install/ takes it: built once by
// create, with what the install sends and what can tell its VM from others'.
import type { GoPveQemuApi, InstallRequest, VmEntry } from "../../client";
import type { ResolvedConnection, VmInputs, VmState } from "../model";
import type { LifecycleContext, Redactor } from "../core";

export interface CreateResult {
  id: string;
  state: VmState;
}

/** Everything one create needs, built once. */
export interface InstallJob {
  inputs: VmInputs;
  conn: ResolvedConnection;
  client: GoPveQemuApi;
  /** undefined when not known (an interrupted create's generated password) */
  password?: string;
  passwordGenerated: boolean;
  redact: Redactor;
  ctx: LifecycleContext;
  request: InstallRequest;
  /** endpoint key for the VMID gate */
  key: string;
  /** the name the install sends: the user's, this stack's marked name (stackName), or none */
  name?: string;
  /** `name` carries this stack's mark for this resource: a VM with it can only be this resource's */
  marked: boolean;
  /** the stack's identity, when the program declared it (the StackIdentity resource) */
  identity?: string;
  /** when this attempt's install began (ms, the lifecycle's clock) */
  startedAt: number;
  /** the server's own node, when known: an install there names no node (sendsNode) */
  serverNode?: string;
  /** an unmarked name with the VMID the server's to pick: what can tell its new VM from others' (sameNameOf) */
  sameName?: { before: VmEntry[]; contested(): boolean };
}
