// Every provider-wide setting, declared once: its key (the same under the
// dynamic provider's `goPveQemu:` and the plugin's `gopveqemu:`), its kind
// (which gives its zod type and how the reader parses it), its default, its
// environment variable, its description. The config schema, the reader, the
// package schema and the README's settings table are made from this. A
// default the lifecycle or the client applies is taken from theirs, so that
// it is written in one place only.
import { DEFAULT_STREAM_TIMEOUTS } from "../client";
import { DEFAULT_TIMING } from "../lifecycle";
import type { Kind } from "./kinds";

export interface Declared<K extends Kind = Kind> {
  kind: K;
  /** What the reader gives when neither stack config nor the environment does; none: left to the server or unset. */
  default?: number | boolean | Record<string, number>;
  /** The environment variable read when stack config does not give the key. */
  env?: string;
  secret?: boolean;
  /** The package schema's description (the SDKs carry it); the README's table shows it too. */
  description: string;
  /** The README's words for a setting without a default value. */
  noDefault?: string;
  /** More for the README's table than the SDKs need. */
  readme?: string;
}

/** A number of milliseconds; its description is made with its default, as text. */
function ms(value: number, describe: (d: string) => string, readme?: string): Declared<"millis"> {
  return { kind: "millis", default: value, description: describe(String(value)), ...(readme ? { readme } : {}) };
}

const T = DEFAULT_TIMING;
const S = DEFAULT_STREAM_TIMEOUTS;

/** The order is the package schema's and the README table's. */
export const SETTINGS = {
  endpoint: {
    kind: "text",
    env: "GO_PVE_QEMU_ENDPOINT",
    noDefault: "none",
    description:
      "The go-pve-qemu server's base URL, e.g. http://10.0.0.5:8080, for every resource without a connection of its own. Default: the environment variable GO_PVE_QEMU_ENDPOINT.",
  },
  token: {
    kind: "text",
    env: "GO_PVE_QEMU_TOKEN",
    secret: true,
    noDefault: "none",
    description:
      "Bearer token for a server behind an authenticating proxy (secret; never shown). Default: the environment variable GO_PVE_QEMU_TOKEN.",
  },
  offline: {
    kind: "flag",
    default: false,
    env: "GO_PVE_QEMU_OFFLINE",
    description: "When true, preview does not ask the server (default false, else GO_PVE_QEMU_OFFLINE).",
    readme: "See [What preview checks](docs/vm-resource.md#what-preview-checks).",
  },
  checkTimeoutMs: ms(
    5_000,
    (d) => `At preview, how long to wait for the server's list (node names, reachability), in ms (default ${d}).`,
  ),
  pollIntervalMs: ms(T.pollIntervalMs, (d) => `Between two polls of \`list\` / \`status\`, in ms (default ${d}).`),
  rebootWatchIntervalMs: ms(
    T.rebootWatchIntervalMs,
    (d) =>
      `While a followed install may be about to reboot its VM, between two reads of the VM's live power state alone, in ms (default ${d}).`,
    "Per server (one `qm status` on the Proxmox host each), shared by every install and follow that may still see the reboot; its stopped moment lasts seconds and settles the install.",
  ),
  shutdownTimeoutMs: ms(
    T.shutdownTimeoutMs,
    (d) => `How long a graceful shutdown may take before the hard stop, in ms (default ${d}, 10 min).`,
    "The server answers once the guest is off.",
  ),
  stopTimeoutMs: ms(T.stopTimeoutMs, (d) => `Hard stop until the VM reads as \`stopped\`, in ms (default ${d}).`),
  followTimeoutMs: ms(
    T.followTimeoutMs,
    (d) =>
      `After a lost stream (install; start, reboot, migration in updates), the longest the provider follows it by asking the server, in ms (default ${d}, 60 min).`,
    "An install's follow ends sooner, once the steps left (the bounds below) cannot take longer.",
  ),
  imageDownloadBoundMs: ms(
    T.imageDownloadBoundMs,
    (d) => `The longest the server's OS image download may take, in ms (default ${d}, 30 min).`,
  ),
  initScriptBoundMs: ms(
    T.initScriptBoundMs,
    (d) => `The longest the server's SSH initialisation (the init script) may take, in ms (default ${d}, 20 min).`,
  ),
  migrateBoundMs: ms(
    T.migrateBoundMs,
    (d) => `The longest the server's \`qm migrate --with-local-disks\` may take, in ms (default ${d}, 30 min).`,
  ),
  commandBoundMs: ms(
    T.commandBoundMs,
    (d) =>
      `The longest one of the server's \`qm\` / \`pvesh\` commands may take (also: how long a lost \`start\` is watched for the VM to run), in ms (default ${d}).`,
  ),
  sshWaitBoundMs: ms(
    T.sshWaitBoundMs,
    (d) => `The longest one of the server's waits for the VM's SSH may take, in ms (default ${d}, 10 min).`,
    "Against a faster simulator, scale the `*BoundMs` settings down (`scripts/sim-bounds.ts`).",
  ),
  settleWaitMs: ms(
    T.settleWaitMs,
    (d) =>
      `How long a followed install (lost stream) or a takeover whose VM exists may go unsettled before it is recorded as \`unconfirmed\` and \`up\` goes on, in ms (default ${d}).`,
    "See [Failure behaviour](docs/failure-behaviour.md).",
  ),
  confirmTimeoutMs: ms(
    T.confirmTimeoutMs,
    (d) => `After install or start, how long the list may lag, in ms (default ${d}).`,
  ),
  goneTimeoutMs: ms(
    T.goneTimeoutMs,
    (d) => `After destroy, until the VM must be gone from the list, in ms (default ${d}).`,
  ),
  streamIdleTimeoutMs: ms(
    S.idleTimeoutMs,
    (d) =>
      `Longest silence inside a stream, in ms (default ${d}, 15 min); the server is silent for up to ~10 minutes while it waits for SSH.`,
  ),
  streamOverallTimeoutMs: ms(
    S.overallTimeoutMs,
    (d) => `Longest one streamed operation may take, in ms (default ${d}, 60 min).`,
  ),
  streamHeadersTimeoutMs: ms(
    S.headersTimeoutMs,
    (d) =>
      `How long a streamed operation's answer may take to begin (status line and headers), in ms (default ${d}, 2 min).`,
    "The real server answers at once, so a longer wait means nothing is answering behind a proxy or a tunnel and the operation gets one look.",
  ),
  waitForInstalls: {
    kind: "flag",
    default: false,
    description:
      "When true, a followed install or a takeover is followed to its bound (up to an hour with the defaults) instead of being recorded as `unconfirmed` after settleWaitMs (default false).",
  },
  downtimeBudgets: {
    kind: "counts",
    default: {},
    description:
      'How many VMs of each downtime group (the Vm input downtimeGroup) may be down at once while an update shuts them down, changes them and starts them again, e.g. {"web": 3}; a group without a budget has no cap. A VM counts as down from its shutdown until its start has answered; when one fails to come back, no further VM of its group is shut down in that deployment.',
    readme: "See [Rolling updates](#rolling-updates).",
  },
  maxDownPerServer: {
    kind: "count",
    noDefault: "no cap",
    description:
      "How many VMs of one server may be down at once during an update, whatever their group (default: no cap); a failed one stops the rollout on that server.",
  },
  allowHardStop: {
    kind: "flag",
    default: true,
    description:
      "Whether a graceful shutdown that did not work may end in a hard stop before a change that needs the VM off (default true); with false such an update fails with GPQ_SHUTDOWN_FAILED, the VM running and unchanged.",
  },
} as const satisfies Record<string, Declared>;

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** A setting's declaration, every field of it optional or not, for code that goes over all of them. */
export function declared(key: SettingKey): Declared {
  return SETTINGS[key];
}
