// Settings of the preview checks: where the endpoint came from (for
// messages), offline from stack config or the environment, the timeout.
import { readSettings } from "../../provider/settings/settings";

const from = (values: Record<string, string>) => (key: string) => values[key];

describe("settings of the preview checks", () => {
  test("defaults: ask the server, wait at most 5 s", () => {
    expect(readSettings(from({}), {}).serverChecks).toEqual({ offline: false, timeoutMs: 5000 });
  });

  test("offline from stack config wins over the environment; both spell true and false several ways", () => {
    expect(readSettings(from({ "goPveQemu:offline": "true" }), {}).serverChecks.offline).toBe(true);
    expect(readSettings(from({}), { GO_PVE_QEMU_OFFLINE: "1" }).serverChecks.offline).toBe(true);
    expect(
      readSettings(from({ "goPveQemu:offline": "false" }), { GO_PVE_QEMU_OFFLINE: "yes" }).serverChecks.offline,
    ).toBe(false);
    expect(() => readSettings(from({ "goPveQemu:offline": "maybe" }), {})).toThrow(
      'config goPveQemu:offline (or GO_PVE_QEMU_OFFLINE): "maybe" is not allowed; expected true or false',
    );
  });

  test("checkTimeoutMs is a whole number of milliseconds", () => {
    expect(readSettings(from({ "goPveQemu:checkTimeoutMs": "750" }), {}).serverChecks.timeoutMs).toBe(750);
    expect(() => readSettings(from({ "goPveQemu:checkTimeoutMs": "0" }), {})).toThrow(/goPveQemu:checkTimeoutMs/);
  });

  test("the endpoint's source is named for messages", () => {
    expect(readSettings(from({ "goPveQemu:endpoint": "x" }), { GO_PVE_QEMU_ENDPOINT: "y" }).endpointSource).toBe(
      "stack config goPveQemu:endpoint",
    );
    expect(readSettings(from({}), { GO_PVE_QEMU_ENDPOINT: "y" }).endpointSource).toBe(
      "the environment variable GO_PVE_QEMU_ENDPOINT",
    );
    expect(readSettings(from({}), {}).endpointSource).toBeUndefined();
  });

  test("the token's source is named too, and the token itself is the one used", () => {
    const both = readSettings(from({ "goPveQemu:token": "a" }), { GO_PVE_QEMU_TOKEN: "b" });
    expect([both.connection.token, both.tokenSource]).toEqual(["a", "stack config goPveQemu:token"]);
    const env = readSettings(from({}), { GO_PVE_QEMU_TOKEN: "b" });
    expect([env.connection.token, env.tokenSource]).toEqual(["b", "the environment variable GO_PVE_QEMU_TOKEN"]);
    expect(readSettings(from({}), {}).tokenSource).toBeUndefined();
  });

  test("allowHardStop is true unless the stack says false; the headers limit is milliseconds", () => {
    expect(readSettings(from({}), {}).allowHardStop).toBe(true);
    expect(readSettings(from({ "goPveQemu:allowHardStop": "false" }), {}).allowHardStop).toBe(false);
    expect(() => readSettings(from({ "goPveQemu:allowHardStop": "never" }), {})).toThrow(
      'config goPveQemu:allowHardStop: "never" is not allowed; expected true or false',
    );
    expect(readSettings(from({ "goPveQemu:streamHeadersTimeoutMs": "90000" }), {}).stream.headersTimeoutMs).toBe(
      90_000,
    );
  });

  test("settleWaitMs is milliseconds; waitForInstalls true follows each install to its bound", () => {
    expect(readSettings(from({}), {}).timing.settleWaitMs).toBeUndefined();
    expect(readSettings(from({ "goPveQemu:settleWaitMs": "45000" }), {}).timing.settleWaitMs).toBe(45_000);
    expect(() => readSettings(from({ "goPveQemu:settleWaitMs": "soon" }), {})).toThrow(
      'config goPveQemu:settleWaitMs: "soon" is not allowed; expected a whole number of milliseconds > 0',
    );
    const waiting = readSettings(from({ "goPveQemu:waitForInstalls": "true", "goPveQemu:settleWaitMs": "45000" }), {});
    expect(waiting.timing.settleWaitMs).toBe(Number.POSITIVE_INFINITY);
    expect(readSettings(from({ "goPveQemu:waitForInstalls": "false" }), {}).timing.settleWaitMs).toBeUndefined();
    expect(() => readSettings(from({ "goPveQemu:waitForInstalls": "always" }), {})).toThrow(
      'config goPveQemu:waitForInstalls: "always" is not allowed; expected true or false',
    );
  });
});

describe("downtime budgets", () => {
  test("none set: no budget, no cap", () => {
    expect(readSettings(from({}), {}).downtime).toEqual({ budgets: {} });
  });

  test("an object of groups (as --path config stores it) and a server cap", () => {
    const s = readSettings(
      from({ "goPveQemu:downtimeBudgets": '{"web": 3, "db": "1"}', "goPveQemu:maxDownPerServer": "4" }),
      {},
    );
    expect(s.downtime).toEqual({ budgets: { web: 3, db: 1 }, perServer: 4 });
  });

  test("bad values name the key, the group and what is allowed", () => {
    expect(() => readSettings(from({ "goPveQemu:downtimeBudgets": '{"web": 0}' }), {})).toThrow(
      `config goPveQemu:downtimeBudgets: group "web" has 0; expected a whole number of VMs >= 1, e.g. {"web": 3}, or pulumi config set --path 'goPveQemu:downtimeBudgets.web' 3`,
    );
    expect(() => readSettings(from({ "goPveQemu:downtimeBudgets": "3" }), {})).toThrow(
      /goPveQemu:downtimeBudgets: "3" is not allowed; expected an object of group names/,
    );
    expect(() => readSettings(from({ "goPveQemu:downtimeBudgets": "web=3" }), {})).toThrow(
      /goPveQemu:downtimeBudgets: "web=3" is not allowed/,
    );
    // only whole numbers, as numbers or their digits: no booleans, lists, hex or exponents
    for (const v of ["true", "[3]", '"0x3"', '"1e1"', "1.5", '"-2"'])
      expect(() => readSettings(from({ "goPveQemu:downtimeBudgets": `{"web": ${v}}` }), {})).toThrow(
        /group "web" has .*; expected a whole number of VMs >= 1/,
      );
    expect(readSettings(from({ "goPveQemu:downtimeBudgets": '{"web": "2"}' }), {}).downtime.budgets).toEqual({
      web: 2,
    });
    // a key no Vm's downtimeGroup can have would cap nothing: refused, naming it
    for (const k of ["web servers", "web ", "-web", ""])
      expect(() => readSettings(from({ "goPveQemu:downtimeBudgets": JSON.stringify({ [k]: 2 }) }), {})).toThrow(
        `config goPveQemu:downtimeBudgets: "${k}" is not a downtime group name`,
      );
    for (const v of ["0x3", "1e1", "true", "0"])
      expect(() => readSettings(from({ "goPveQemu:maxDownPerServer": v }), {})).toThrow(/maxDownPerServer/);
    expect(() => readSettings(from({ "gopveqemu:maxDownPerServer": "2.5" }), {}, "gopveqemu")).toThrow(
      'config gopveqemu:maxDownPerServer: "2.5" is not allowed; expected a whole number of VMs >= 1',
    );
  });
});
