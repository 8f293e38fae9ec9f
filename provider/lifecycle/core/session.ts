// What every operation on a VM sets up first, written once: a client for the
// connection the VM is served from, a redactor that knows every secret in
// play (passwords, the connection's token and headers), and the VM's label
// for messages.
import type { GoPveQemuApi } from "../../client";
import { connectionSecrets } from "../model";
import type { ResolvedConnection } from "../model";
import type { LifecycleContext } from "./context";
import { vmLabel } from "./labels";
import { redactor } from "./redact";
import type { Redactor } from "./redact";

export interface VmSession {
  conn: ResolvedConnection;
  client: GoPveQemuApi;
  redact: Redactor;
  label: string;
}

/** The session for VM `vmid` at `conn`; `secrets`: passwords and other connections whose secrets may show up too. */
export function sessionOf(
  ctx: LifecycleContext,
  vm: { vmid: number; vmName?: string },
  conn: ResolvedConnection,
  secrets: Array<string | undefined | ResolvedConnection> = [],
): VmSession {
  const texts = secrets.flatMap((s) => (typeof s === "object" ? connectionSecrets(s) : [s]));
  return {
    conn,
    client: ctx.client(conn),
    redact: redactor([...texts, ...connectionSecrets(conn)]),
    label: vmLabel(vm.vmid, vm.vmName),
  };
}
