// The provider's configuration as the package schema declares it: the keys a
// plugin's users set with `pulumi config set gopveqemu:<key>` or give an
// explicit provider, with their descriptions. The same keys as the dynamic
// provider's `goPveQemu:*` (readSettings), coerced as readSettings coerces
// them, because config values arrive as strings.
import { z } from "zod";

/** A whole number of milliseconds > 0; config gives it as text. */
export const Millis = z.coerce.number().int().positive();
/** A number of VMs >= 1; config gives it as text. */
const VmCount = z.coerce.number().int().positive();
/** true/false as readSettings reads it: a boolean, or its words in any case. */
const Flag = z.union([
  z.boolean(),
  z.stringbool({ truthy: ["true", "1", "yes"], falsy: ["false", "0", "no"], case: "insensitive" }),
]);

const ms = (description: string) => Millis.optional().meta({ description });

export const ConfigSchema = z.object({
  endpoint: z.string().optional().meta({
    description:
      "The go-pve-qemu server's base URL, e.g. http://10.0.0.5:8080, for every resource without a connection of its own. Default: the environment variable GO_PVE_QEMU_ENDPOINT.",
  }),
  token: z.string().optional().meta({
    description:
      "Bearer token for a server behind an authenticating proxy (secret; never shown). Default: the environment variable GO_PVE_QEMU_TOKEN.",
    secret: true,
  }),
  offline: Flag.optional().meta({
    description: "When true, preview does not ask the server (default false, else GO_PVE_QEMU_OFFLINE).",
  }),
  checkTimeoutMs: ms(
    "At preview, how long to wait for the server's list (node names, reachability), in ms (default 5000).",
  ),
  pollIntervalMs: ms("Between two polls of `list` / `status`, in ms (default 2000)."),
  rebootWatchIntervalMs: ms(
    "While a followed install may be about to reboot its VM, between two reads of the VM's live power state alone, in ms (default 500).",
  ),
  shutdownTimeoutMs: ms("How long a graceful shutdown may take before the hard stop, in ms (default 600000, 10 min)."),
  stopTimeoutMs: ms("Hard stop until the VM reads as `stopped`, in ms (default 60000)."),
  followTimeoutMs: ms(
    "After a lost stream (install; start, reboot, migration in updates), the longest the provider follows it by asking the server, in ms (default 3600000, 60 min).",
  ),
  imageDownloadBoundMs: ms("The longest the server's OS image download may take, in ms (default 1800000, 30 min)."),
  initScriptBoundMs: ms(
    "The longest the server's SSH initialisation (the init script) may take, in ms (default 1200000, 20 min).",
  ),
  migrateBoundMs: ms(
    "The longest the server's `qm migrate --with-local-disks` may take, in ms (default 1800000, 30 min).",
  ),
  commandBoundMs: ms(
    "The longest one of the server's `qm` / `pvesh` commands may take (also: how long a lost `start` is watched for the VM to run), in ms (default 30000).",
  ),
  sshWaitBoundMs: ms(
    "The longest one of the server's waits for the VM's SSH may take, in ms (default 600000, 10 min).",
  ),
  settleWaitMs: ms(
    "How long a followed install (lost stream) or a takeover whose VM exists may go unsettled before it is recorded as `unconfirmed` and `up` goes on, in ms (default 30000).",
  ),
  confirmTimeoutMs: ms("After install or start, how long the list may lag, in ms (default 60000)."),
  goneTimeoutMs: ms("After destroy, until the VM must be gone from the list, in ms (default 120000)."),
  streamIdleTimeoutMs: ms(
    "Longest silence inside a stream, in ms (default 900000, 15 min); the server is silent for up to ~10 minutes while it waits for SSH.",
  ),
  streamOverallTimeoutMs: ms("Longest one streamed operation may take, in ms (default 3600000, 60 min)."),
  streamHeadersTimeoutMs: ms(
    "How long a streamed operation's answer may take to begin (status line and headers), in ms (default 120000, 2 min).",
  ),
  waitForInstalls: Flag.optional().meta({
    description:
      "When true, a followed install or a takeover is followed to its bound (up to an hour with the defaults) instead of being recorded as `unconfirmed` after settleWaitMs (default false).",
  }),
  downtimeBudgets: z.record(z.string(), VmCount).optional().meta({
    description:
      'How many VMs of each downtime group (the Vm input downtimeGroup) may be down at once while an update shuts them down, changes them and starts them again, e.g. {"web": 3}; a group without a budget has no cap. A VM counts as down from its shutdown until its start has answered; when one fails to come back, no further VM of its group is shut down in that deployment.',
  }),
  maxDownPerServer: VmCount.optional().meta({
    description:
      "How many VMs of one server may be down at once during an update, whatever their group (default: no cap); a failed one stops the rollout on that server.",
  }),
  allowHardStop: Flag.optional().meta({
    description:
      "Whether a graceful shutdown that did not work may end in a hard stop before a change that needs the VM off (default true); with false such an update fails with GPQ_SHUTDOWN_FAILED, the VM running and unchanged.",
  }),
});

/**
 * The provider's inputs: its configuration, and the stack's identity, which
 * the provider makes once and keeps from the old inputs (no user sets it).
 */
export const ProviderInputsSchema = ConfigSchema.extend({
  stackIdentity: z
    .string()
    .optional()
    .meta({ description: "The stack's identity, made once by the provider; never set by hand.", secret: true }),
});
