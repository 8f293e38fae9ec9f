// Every setting of the declaration, read by the reader: with nothing set it
// is its declared default (as the lifecycle and the client apply it), and
// its stack config key under either namespace, and its environment variable
// when it has one, are read. PLACED says where each lands in what the reader
// returns: a setting added to the declaration fails the type check until it
// is placed here.
import { DEFAULT_STREAM_TIMEOUTS } from "../../provider/client";
import { DEFAULT_TIMING } from "../../provider/lifecycle";
import type { Timing } from "../../provider/lifecycle";
import { SETTING_KEYS, declared } from "../../provider/settings/declared";
import type { SettingKey } from "../../provider/settings/declared";
import { readSettings } from "../../provider/settings/settings";
import type { ProviderSettings } from "../../provider/settings/settings";

const timing = (key: keyof Timing) => (s: ProviderSettings) => ({ ...DEFAULT_TIMING, ...s.timing })[key];

const PLACED: Record<SettingKey, (s: ProviderSettings) => unknown> = {
  endpoint: (s) => s.connection.endpoint,
  token: (s) => s.connection.token,
  offline: (s) => s.serverChecks.offline,
  checkTimeoutMs: (s) => s.serverChecks.timeoutMs,
  pollIntervalMs: timing("pollIntervalMs"),
  rebootWatchIntervalMs: timing("rebootWatchIntervalMs"),
  shutdownTimeoutMs: timing("shutdownTimeoutMs"),
  stopTimeoutMs: timing("stopTimeoutMs"),
  followTimeoutMs: timing("followTimeoutMs"),
  imageDownloadBoundMs: timing("imageDownloadBoundMs"),
  initScriptBoundMs: timing("initScriptBoundMs"),
  migrateBoundMs: timing("migrateBoundMs"),
  commandBoundMs: timing("commandBoundMs"),
  sshWaitBoundMs: timing("sshWaitBoundMs"),
  settleWaitMs: timing("settleWaitMs"),
  confirmTimeoutMs: timing("confirmTimeoutMs"),
  goneTimeoutMs: timing("goneTimeoutMs"),
  streamIdleTimeoutMs: (s) => s.stream.idleTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.idleTimeoutMs,
  streamOverallTimeoutMs: (s) => s.stream.overallTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.overallTimeoutMs,
  streamHeadersTimeoutMs: (s) => s.stream.headersTimeoutMs ?? DEFAULT_STREAM_TIMEOUTS.headersTimeoutMs,
  // Waiting for installs is read as an unbounded settle wait.
  waitForInstalls: (s) => s.timing.settleWaitMs === Number.POSITIVE_INFINITY,
  downtimeBudgets: (s) => s.downtime.budgets,
  maxDownPerServer: (s) => s.downtime.perServer,
  allowHardStop: (s) => s.allowHardStop,
};

/** A value of each kind other than any default, as text and as the reader gives it back. */
const SAMPLE = {
  text: { text: "http://127.0.0.1:9", read: "http://127.0.0.1:9" },
  millis: { text: "1234", read: 1234 },
  count: { text: "3", read: 3 },
  counts: { text: '{"web": 2}', read: { web: 2 } },
} as const;

function sampleOf(key: SettingKey): { text: string; read: unknown } {
  const s = declared(key);
  // A flag's sample is the opposite of its default, so that reading it shows.
  if (s.kind === "flag") return { text: String(!s.default), read: !s.default };
  return SAMPLE[s.kind];
}

const defaultOf = (key: SettingKey): unknown => declared(key).default;

describe.each(SETTING_KEYS)("%s", (key) => {
  const s = declared(key);

  test("with nothing set, the reader gives its declared default", () => {
    expect(PLACED[key](readSettings(() => undefined, {}))).toEqual(defaultOf(key));
  });

  test.each(["goPveQemu", "gopveqemu"])("its stack config key under %s: is read", (ns) => {
    const sample = sampleOf(key);
    const read = readSettings((k) => (k === `${ns}:${key}` ? sample.text : undefined), {}, ns);
    expect(PLACED[key](read)).toEqual(sample.read);
  });

  test("its environment variable, if it has one, is read; stack config wins over it", () => {
    const sample = sampleOf(key);
    const env = s.env === undefined ? {} : { [s.env]: sample.text };
    const read = readSettings(() => undefined, env);
    expect(PLACED[key](read)).toEqual(s.env === undefined ? defaultOf(key) : sample.read);
    if (s.env === undefined) return;
    const both = readSettings((k) => (k === `goPveQemu:${key}` ? sample.text : undefined), { [s.env]: "" });
    expect(PLACED[key](both)).toEqual(sample.read);
  });
});

test("the declared environment variables are the ones the docs name", () => {
  const named = SETTING_KEYS.flatMap((k) => {
    const s = declared(k);
    return s.env === undefined ? [] : [`${k}=${s.env}`];
  });
  expect(named).toEqual(["endpoint=GO_PVE_QEMU_ENDPOINT", "token=GO_PVE_QEMU_TOKEN", "offline=GO_PVE_QEMU_OFFLINE"]);
});
