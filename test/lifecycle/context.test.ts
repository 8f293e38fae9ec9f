import { resolveConnection, endpointKey } from "../../provider/lifecycle/model/connection";
import { parseState } from "../../provider/lifecycle/model/state";
import { LifecycleError } from "../../provider/lifecycle/model/lifecycle-error";
import { redactor, safeCause } from "../../provider/lifecycle/core/redact";
import { generatePassword } from "../../provider/lifecycle/model/password";
import { installProgress } from "../../provider/lifecycle/core/progress";

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
  test("redaction masks every non-empty secret; one shorter than 8 characters only as a whole value", () => {
    const r = redactor(["hunter22", "tok-abc", undefined, "ab", ""]);
    expect(r("pw hunter22 and tok-abc, ab")).toBe("pw *** and ***, ***");
    // long secrets are masked anywhere, even inside other text
    expect(r("xhunter22x")).toBe("x***x");
    expect(redactor([""])("nothing to hide")).toBe("nothing to hide");
    // a short token or header value ("prod", "1") never mangles the words that contain it
    const short = redactor(["prod", "1", "a.b"]);
    expect(short("production on prod, Bearer prod; x-env=prod")).toBe("production on ***, Bearer ***; x-env=***");
    expect(short("VM web-101 (101) took 1.2 s, retry 1 of 2")).toBe("VM web-101 (101) took ***.2 s, retry *** of 2");
    expect(short("a.b and axb and a.bc")).toBe("*** and axb and a.bc");
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
