// What each recorded stream must come out as. One row per file in
// test/fixtures/streams; fixtures.test.ts fails on a file without a row.
import type { FailureShape, InstallFacts, OperationKind } from "../../provider/client/stream/types";

export interface Expectation {
  kind: OperationKind;
  /** install: the request's `name` */
  requestName?: string;
  ok: boolean;
  shape?: FailureShape;
  serverMessage?: string | RegExp;
  step?: string;
  facts?: Partial<InstallFacts>;
  warnings?: string[];
  lastEventId?: string;
  duplicates?: number;
  /** how many events of each kind the stream decodes to */
  counts?: Partial<Record<"step" | "raw" | "bare" | "close" | "other", number>>;
}

const installed = (
  vmid: number,
  ip: string,
  user: string,
  extra: Partial<InstallFacts> = {},
): Partial<InstallFacts> => ({
  vmid,
  ip,
  user,
  vmCreated: true,
  completed: true,
  ...extra,
});

export const EXPECTATIONS: Record<string, Expectation> = {
  "install-success-auto.sse": {
    kind: "install",
    requestName: "web",
    ok: true,
    facts: installed(101, "192.168.0.101", "deploy", { autoAssigned: true, realName: "web-101" }),
    warnings: [],
    counts: { raw: 3, close: 1, bare: 0 },
  },
  "install-success-specified-clamped.sse": {
    kind: "install",
    ok: true,
    facts: installed(120, "192.168.0.120", "ubuntu", {
      autoAssigned: false,
      realName: "120",
      cpu: 8,
      memoryMb: 16384,
      diskGb: 200,
    }),
    warnings: [],
    counts: { raw: 4, close: 1 },
  },
  "install-success-ssh-key-recovered.sse": {
    kind: "install",
    ok: true,
    facts: installed(102, "192.168.0.102", "debian"),
    warnings: ["[-] failed to check user SSH key: failed to find user SSH public key"],
  },
  "install-ssh-key-create-failed.sse": {
    kind: "install",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to create SSH key: exit status 1",
    step: "SSH preparation > creating SSH key",
    facts: { vmid: 103, vmCreated: false, completed: false },
  },
  "install-ssh-key-unrecovered.sse": {
    kind: "install",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to check user SSH key: failed to find user SSH public key",
    step: "SSH preparation > checking SSH key",
    facts: { vmid: 104, vmCreated: false },
  },
  "install-ssh-key-recovered-then-lost.sse": {
    kind: "install",
    ok: false,
    shape: "connection-lost",
    step: "VM creation > creating VM",
    facts: { vmid: 106, vmCreated: false, completed: false },
  },
  "install-error-vm-creation-race.sse": {
    kind: "install",
    ok: false,
    shape: "error-event",
    serverMessage:
      "[-] failed to create VM: exit status 255, output: unable to create VM 105 - config file already exists",
    step: "VM creation > creating VM",
    facts: { vmid: 105, autoAssigned: true, ip: "192.168.0.105", vmCreated: false, completed: false },
  },
  "install-error-ssh-wait-timeout.sse": {
    kind: "install",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to connect to VM via SSH: VM not ready after 60 attempts",
    step: "VM initialization > waiting for ready",
    facts: { vmid: 107, vmCreated: true, completed: false },
  },
  "install-no-completion-migration.sse": {
    kind: "install",
    ok: false,
    shape: "no-completion",
    serverMessage: /ERROR: migration aborted .*target node "pve9" is not online/,
    step: "migrating",
    facts: { vmid: 108, vmCreated: true, completed: false },
    counts: { raw: 1, close: 1 },
  },
  "install-ip-refused.sse": {
    kind: "install",
    ok: false,
    shape: "bare-message",
    serverMessage: "this IP is not allowed to perform this action",
    facts: { vmCreated: false, completed: false },
    counts: { bare: 1, close: 0 },
  },
  "install-connection-lost.sse": {
    kind: "install",
    ok: false,
    shape: "connection-lost",
    step: "OS preparation > downloading OS image",
    facts: { vmid: 109, ip: "192.168.0.109", vmCreated: false },
  },
  "install-error-os-image.sse": {
    kind: "install",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to get OS image URL: unsupported version: 18.04",
    step: "OS preparation > getting OS image",
    facts: { vmid: 110 },
  },
  "install-no-completion-reboot-failed.sse": {
    kind: "install",
    ok: false,
    shape: "no-completion",
    // qm reboot failed: the server says nothing, the step after SSH initialization is the one.
    step: "VM initialization > rebooting VM",
    facts: { vmid: 111, vmCreated: true, completed: false },
  },
  "install-success-relayed.sse": {
    kind: "install",
    ok: true,
    facts: installed(130, "192.168.0.130", "deploy"),
    duplicates: 3,
    lastEventId: "143",
    counts: { other: 1, close: 1 },
  },
  "start-success.sse": { kind: "start", ok: true, counts: { step: 4, close: 1 } },
  "start-refused-running.sse": { kind: "start", ok: false, shape: "bare-message", serverMessage: "VM is running" },
  "start-error-qm-start.sse": {
    kind: "start",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to start VM: exit status 255",
    step: "starting VM",
  },
  "start-error-ssh-timeout.sse": {
    kind: "start",
    ok: false,
    shape: "error-event",
    serverMessage: "[-] failed to connect to VM via SSH: VM not ready after 60 attempts",
    step: "waiting for SSH",
  },
  "start-no-completion-os-user.sse": {
    kind: "start",
    ok: false,
    shape: "no-completion",
    serverMessage: "[-] failed to get OS user: OS user not found",
    step: "waiting for SSH",
  },
  "start-no-completion-missing-final.sse": {
    kind: "start",
    ok: false,
    shape: "no-completion",
    step: "waiting for SSH",
  },
  "start-error-multiline-output.sse": {
    kind: "start",
    ok: false,
    shape: "error-event",
    serverMessage:
      "[-] failed to start VM via SSH: exit status 255, output: ssh: connect to host 192.168.0.12 port 22: Connection refused",
    step: "starting VM via SSH",
    counts: { step: 1, raw: 2, close: 0 },
  },
  "reboot-success.sse": { kind: "reboot", ok: true },
  "reboot-refused-not-running.sse": {
    kind: "reboot",
    ok: false,
    shape: "bare-message",
    serverMessage: "VM is not running",
  },
  "reboot-bare-with-quotes.sse": {
    kind: "reboot",
    ok: false,
    shape: "bare-message",
    serverMessage:
      '[-] failed to reboot VM: exit status 2, output: VM 101 qmp command "guest-shutdown" failed - got timeout',
    counts: { raw: 1, bare: 0 },
  },
  "migrate-success.sse": { kind: "migrate", ok: true, counts: { step: 8, raw: 1, close: 1 } },
  "migrate-failed.sse": {
    kind: "migrate",
    ok: false,
    shape: "bare-message",
    serverMessage: "[-] failed to migrate VM: [-] failed to perform migrate: exit status 255",
    step: "migrating",
  },
  "migrate-disabled-vm.sse": {
    kind: "migrate",
    ok: false,
    shape: "bare-message",
    serverMessage: "this IP is not allowed to be controlled",
  },
  "migrate-server-misconfigured.sse": {
    kind: "migrate",
    ok: false,
    shape: "bare-message",
    serverMessage: "failed to get VM list: open .go_qemu_disabled: no such file or directory",
  },
  // Other services' streams read as a go-pve-qemu start: their own completion events
  // (`completion`, `complete`, a `destroyed` state) are not go-pve-qemu's close.
  "seed002-operation-events.sse": {
    kind: "start",
    ok: false,
    shape: "connection-lost",
    duplicates: 1,
    lastEventId: "6",
    counts: { other: 6 },
  },
  "seed002-sse-error.sse": {
    kind: "start",
    ok: false,
    // The stream's own failure (`sse_error`), not the operation's: the outcome is not known.
    shape: "stream-error",
    serverMessage:
      'in-band "sse_error" frame of the stream: subscription buffer overflow (data: {"error":{"code":"stream_failed","message":"subscription buffer overflow"}})',
    step: "starting VM",
    lastEventId: "12",
  },
  "seed003-environment-state.sse": {
    kind: "start",
    ok: false,
    shape: "connection-lost",
    lastEventId: "45c48cce2e2d7fbdea1afc51c7c6ad26",
    counts: { other: 3 },
  },
  "seed004-operation-progress.sse": {
    kind: "start",
    ok: false,
    shape: "connection-lost",
    lastEventId: "43",
    counts: { other: 5 },
  },
};
