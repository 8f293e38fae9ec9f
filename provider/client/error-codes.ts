// Every stable code an error of this provider carries, declared once with
// what it means and what the user does next (undici's pattern: callers and
// users match codes, not sentences). It sits in the client, the lowest layer,
// so that every layer above types its codes by it: a code field is an
// ErrorCode, and a code missing here is a type error. docs/troubleshooting.md's
// table is made from it (scripts/docs-tables.ts).

interface CodeDoc {
  /** What happened. */
  meaning: string;
  /** What the user does about it. */
  next: string;
}

export const ERROR_CODES = {
  // The client: HTTP and streams.
  GPQ_CONNECTION: {
    meaning: "the server could not be reached (refused, reset, DNS, TLS, connect timeout)",
    next: "check `goPveQemu:endpoint` (or the resource's `connection`) and that the server runs and is reachable from this machine",
  },
  GPQ_CANCELLED: {
    meaning: "the operation was cancelled (Ctrl-C, the engine's cancel, a timeout of the caller)",
    next: "run `up` again; an interrupted install is taken over or recorded as a pending create",
  },
  GPQ_HTTP_STATUS: {
    meaning: "the server answered with an HTTP status that is not success, quoted in the message",
    next: "read the server's words in the message (e.g. `ALLOW_IPS`, a disabled VM); fix that on the server",
  },
  GPQ_RESPONSE_SHAPE: {
    meaning: "the server's answer did not have the expected shape (another service, a proxy's page, a newer server)",
    next: "check that the endpoint is a go-pve-qemu server, not a proxy's page; compare its version",
  },
  GPQ_SERVER_ERROR: {
    meaning: "a stream ended with the server's `event: error`",
    next: "read the server's step and lines in the message; fix the cause on Proxmox and run `up` again",
  },
  GPQ_SERVER_REFUSED: {
    meaning: "the server refused the operation with a bare message instead of a stream",
    next: "read the refusal in the message (a bad value, a busy VM) and change the program or the server",
  },
  GPQ_NO_COMPLETION: {
    meaning: "a stream ended without its completion event",
    next: "run `refresh` or `up`: the provider asks the server what became of the operation",
  },
  GPQ_STREAM_LOST: {
    meaning: "a stream broke or fell silent past `goPveQemu:streamIdleTimeoutMs`",
    next: "run `up` again; raise `goPveQemu:streamIdleTimeoutMs` if the server is silent longer",
  },
  GPQ_NO_ANSWER: {
    meaning: "a streamed operation's answer did not begin within `goPveQemu:streamHeadersTimeoutMs`",
    next: "check the proxy or tunnel in front of the server; the operation got one look at the server",
  },
  GPQ_OVERALL_TIMEOUT: {
    meaning: "a streamed operation took longer than `goPveQemu:streamOverallTimeoutMs`",
    next: "raise `goPveQemu:streamOverallTimeoutMs` for slow installs, then `up`",
  },
  // The lifecycle.
  GPQ_PARTIAL: {
    meaning: "a VM exists and is kept in state, but the operation did not finish",
    next: "run `up` again: it finishes or replaces the VM",
  },
  GPQ_LIFECYCLE: {
    meaning: "the operation failed and left nothing of this provider's behind",
    next: "read the message, fix what it names, run `up` again",
  },
  GPQ_INSTALL_FAILED: {
    meaning: "the server refused the install (an answer, an error event, a bare refusal)",
    next: "read the server's words; fix the inputs or the server, then `up`",
  },
  GPQ_INSTALL_UNKNOWN: {
    meaning: "the install's outcome could not be known, and there is no VMID to record",
    next: "follow the one step the message names (each candidate VM and why it was not taken), then `up`",
  },
  GPQ_VMID_TAKEN: {
    meaning: "a pinned VMID is held by another VM, or several VMs carry this resource's name",
    next: "pick another `vmid`, or delete or rename the other VM",
  },
  GPQ_UNREACHABLE: {
    meaning: "the server could not be reached or listed",
    next: "check the endpoint and the server; at preview, set `goPveQemu:offline true` where no server is expected",
  },
  GPQ_ADOPT: {
    meaning: "an existing VM could not be adopted",
    next: "read the message: the VM it names does not match the inputs, or is not there",
  },
  GPQ_SHUTDOWN_FAILED: {
    meaning: "a graceful shutdown did not work and a hard stop is not allowed (`goPveQemu:allowHardStop false`)",
    next: "make the guest answer ACPI shutdown, or allow the hard stop; the VM is running and unchanged",
  },
  GPQ_HELD_BACK: {
    meaning: "a rollout stopped after a VM of this downtime group failed: this VM was not shut down",
    next: "fix the VM that failed (named in the message), then `up` again",
  },
  GPQ_DOWNTIME_REFUSED: {
    meaning: "`allowDowntime` is false, and the change would take the VM down",
    next: "set `allowDowntime: true` for this change, or change only what needs no downtime",
  },
  // discover.
  GPQ_DISCOVER_OPTION: {
    meaning: "a `discover` option was bad or missing",
    next: "run `go-pve-qemu-pulumi discover --help` and give the option as it says",
  },
} as const satisfies Record<`GPQ_${string}`, CodeDoc>;

/** A code of the registry: every error's `code` field is one. */
export type ErrorCode = keyof typeof ERROR_CODES;
