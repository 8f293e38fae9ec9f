import { resolveConnection } from "../../provider/lifecycle/connection";
import { parseState } from "../../provider/lifecycle/state";
import { LifecycleError } from "../../provider/lifecycle/errors";
import { endpointKey } from "../../provider/lifecycle/connection";
import { redactor, safeCause } from "../../provider/lifecycle/redact";
import { generatePassword } from "../../provider/lifecycle/password";
import { installProgress } from "../../provider/lifecycle/progress";

describe("connection resolution", () => {
  test("the resource's own settings win, field by field, over the defaults", () => {
    expect(resolveConnection({ endpoint: "http://own:1" }, { endpoint: "http://def:2", token: "deftoken" })).toEqual({
      endpoint: "http://own:1",
      token: "deftoken",
    });
    expect(resolveConnection(undefined, { endpoint: "http://def:2" })).toEqual({ endpoint: "http://def:2" });
    expect(
      resolveConnection({ token: "own-token", headers: { a: "b" } }, { endpoint: "http://def:2", token: "x" }),
    ).toEqual({
      endpoint: "http://def:2",
      token: "own-token",
      headers: { a: "b" },
    });
  });

  test("no endpoint at all: an error naming the three ways to set one", () => {
    expect(() => resolveConnection({ endpoint: "" }, {})).toThrow(LifecycleError);
    expect(() => resolveConnection(undefined, undefined)).toThrow(
      /connection\.endpoint.*pulumi config set goPveQemu:endpoint.*GO_PVE_QEMU_ENDPOINT/,
    );
  });

  test("the same server spelled differently is one lock key", () => {
    expect(endpointKey("http://Host:8080/")).toBe(endpointKey("http://host:8080"));
    expect(endpointKey("http://host:8080")).not.toBe(endpointKey("http://host:8081"));
  });
});

describe("secrets", () => {
  test("redaction masks every non-empty secret, however short (check refuses short passwords)", () => {
    const r = redactor(["hunter22", "tok-abc", undefined, "ab", ""]);
    expect(r("pw hunter22 and tok-abc, ab")).toBe("pw *** and ***, ***");
    expect(redactor([""])("nothing to hide")).toBe("nothing to hide");
    const cause = safeCause(new Error("bad hunter22"), r) as Error;
    expect(cause.message).toBe("bad ***");
    const clean = new Error("fine");
    expect(safeCause(clean, r)).toBe(clean);
  });

  test("generated passwords: 24 URL-safe characters, never the same", () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(new Set(Array.from({ length: 50 }, generatePassword)).size).toBe(50);
  });

  test("a reporter that throws does not break the stream it reports on", () => {
    const boom = () => {
      throw new Error("reporter down");
    };
    const on = installProgress({ info: boom, warn: boom, debug: boom }, (t) => t, false);
    expect(() =>
      on({ kind: "step", step: "preparation > checking VMID", status: "success", message: "x" }),
    ).not.toThrow();
  });
});

describe("state parsing is tolerant", () => {
  test("malformed fields are dropped, the rest kept; the VMID may come from the id", () => {
    const s = parseState(
      { cpu: "four", memoryMb: 2048, inputs: { cpu: "x", os: "ubuntu" }, clamped: 7, junk: 1 },
      "101",
    );
    expect(s).toEqual({ vmid: 101, memoryMb: 2048, inputs: { os: "ubuntu" } });
  });
  test("no VMID anywhere is an error", () => {
    expect(() => parseState({}, "web")).toThrow(/holds no VMID/);
  });
});
