// States and inputs for unit tests: a VM as create records it.
import type { VmEntry } from "../../provider/client/schemas";
import type { VmInputs, VmState } from "../../provider/lifecycle";

export const ENDPOINT = "http://127.0.0.1:9";

export function inputs(patch: Partial<Record<keyof VmInputs, unknown>> = {}): VmInputs {
  return { os: "ubuntu", version: "24.04", name: "web", ...patch } as VmInputs;
}

/** The state of a VM created from `desired` with the server's defaults applied. */
export function stateOf(desired: VmInputs = inputs(), patch: Partial<VmState> = {}): VmState {
  const { password, connection, ...rest } = desired;
  const vmid = desired.vmid ?? 101;
  return {
    vmid,
    vmName: desired.name ? `${desired.name}-${vmid}` : String(vmid),
    ip: `10.0.0.${vmid}`,
    node: desired.node ?? "pve1",
    os: desired.os,
    version: desired.version,
    user: desired.user ?? "ubuntu",
    cpu: desired.cpu ?? 2,
    memoryMb: desired.memoryMb ?? 2048,
    diskGb: desired.diskGb ?? 16,
    running: desired.running ?? true,
    password: password ?? "generated-password-xyz",
    ...(password === undefined ? { passwordGenerated: true } : {}),
    connection: {
      endpoint: connection?.endpoint ?? ENDPOINT,
      ...(connection?.token ? { token: connection.token } : {}),
    },
    inputs: JSON.parse(JSON.stringify(rest)),
    installComplete: true,
    ...patch,
  } as VmState;
}

/** VM 101 as the server's list shows it (memory and disk in whole GiB). */
export function listEntry(patch: Partial<VmEntry> = {}): VmEntry {
  return {
    vmid: 101,
    name: "web-101",
    os: "ubuntu",
    running: true,
    node: "pve1",
    cpu: 2,
    disk: 16,
    memory: 2,
    ...patch,
  };
}
