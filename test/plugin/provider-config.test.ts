// The plugin provider's configuration: the identity made once in CheckConfig
// and kept from the old inputs, never a diff; bad settings named at preview.
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { settingProblems } from "../../provider/settings";
import { checkConfig, configure as configureWith, diffConfig } from "../../provider/plugin/provider-config";
import { configure as makeCore } from "../../provider/core";
import { unwrapSecrets } from "../../provider/plugin/wire-bags";

/** One provider process's core, as the plugin's serve makes it. */
const core = makeCore({ env: process.env, engineUnknown: "unknown" });
const configure = (args: Record<string, unknown>) => configureWith(core, args);
const configured = () => core.settings();
const providerIdentity = () => core.providerIdentity;

const s = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
const identityOf = (bag: Record<string, unknown>) => (bag.stackIdentity as { value: string }).value;

test("the first CheckConfig makes an identity, as a secret; the next ones keep the old inputs' identity", () => {
  const first = checkConfig({}, { endpoint: "http://127.0.0.1:1" });
  expect(first.stackIdentity).toEqual(s(expect.stringMatching(/^[0-9a-f]{32}$/)));
  const again = checkConfig(first, { endpoint: "http://127.0.0.1:2" });
  expect(identityOf(again)).toBe(identityOf(first));
  // Two stacks (two backends with the same names) get two identities.
  expect(identityOf(checkConfig({}, {}))).not.toBe(identityOf(first));
  // Something that is not an identity is never taken for one.
  expect(identityOf(checkConfig({ stackIdentity: "not-an-identity" }, {}))).toMatch(/^[0-9a-f]{32}$/);
  expect(identityOf(checkConfig({ stackIdentity: "not-an-identity" }, {}))).not.toBe("not-an-identity");
});

test("DiffConfig names the changed settings, never the identity", () => {
  const a = { endpoint: "http://127.0.0.1:1", stackIdentity: s("a".repeat(32)), token: s("t1") };
  expect(diffConfig(a, { ...a, stackIdentity: s("b".repeat(32)) })).toEqual([]);
  expect(diffConfig(a, { ...a, endpoint: "http://127.0.0.1:2", token: s("t2") })).toEqual(["endpoint", "token"]);
  expect(diffConfig(a, { endpoint: "http://127.0.0.1:1", stackIdentity: a.stackIdentity })).toEqual(["token"]);
});

test("Configure reads gopveqemu:* settings (typed or text), a secret token and the identity", () => {
  configure({
    endpoint: "http://127.0.0.1:9",
    token: s("tok"),
    pollIntervalMs: 250,
    allowHardStop: false,
    stackIdentity: s("d".repeat(32)),
  });
  const settings = configured();
  expect(settings.connection).toEqual({ endpoint: "http://127.0.0.1:9", token: "tok" });
  expect(settings.endpointSource).toBe("stack config gopveqemu:endpoint");
  expect(settings.timing.pollIntervalMs).toBe(250);
  expect(settings.allowHardStop).toBe(false);
  expect(providerIdentity()).toBe("d".repeat(32));
});

test("a bad setting fails every call with its key and what is allowed", () => {
  const said = 'config gopveqemu:pollIntervalMs: "soon" is not allowed; expected a whole number of milliseconds > 0';
  expect(() => configure({ endpoint: "http://127.0.0.1:9", pollIntervalMs: "soon" })).toThrow(said);
  expect(() => configured()).toThrow(said);
  configure({ endpoint: "http://127.0.0.1:9" });
  expect(configured().connection.endpoint).toBe("http://127.0.0.1:9");
});

test("CheckConfig's failures: every bad value and every unknown key at once, by key", () => {
  // As CheckConfig hands them over: secrets unwrapped.
  const problems = settingProblems(
    unwrapSecrets({
      endpoint: "http://127.0.0.1:1",
      pollIntervalMs: "-5",
      offline: "perhaps",
      endpiont: "http://typo",
      version: "0.1.0",
      stackIdentity: s("a".repeat(32)),
    }) as Record<string, unknown>,
    "gopveqemu",
  );
  expect(problems.map((p) => p.property).sort()).toEqual(["endpiont", "offline", "pollIntervalMs"]);
  expect(problems.find((p) => p.property === "endpiont")!.reason).toMatch(
    /^gopveqemu:endpiont is not a setting of this provider; allowed endpoint, token, .*pollIntervalMs/,
  );
  expect(problems.find((p) => p.property === "offline")!.reason).toMatch(/expected true or false/);
  expect(settingProblems({ endpoint: "http://127.0.0.1:1", pollIntervalMs: 100 }, "gopveqemu")).toEqual([]);
});
