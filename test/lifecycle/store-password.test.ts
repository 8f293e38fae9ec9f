// storePassword: false, without a server: check takes the password out of the
// inputs that state keeps (a salted hash in its place, reused while the
// password matches), diff still sees a changed password, and switching the
// option is an update that only rewrites state.
import { check, diff, UNKNOWN } from "../../provider/lifecycle";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { hashPassword, passwordMatches } from "../../provider/lifecycle/model/password";
import { inputs, stateOf } from "./fixtures";

const PASSWORD = "s3cret-pass-one";

function checked(news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  return check(olds, { os: "ubuntu", version: "24.04", name: "web", ...news });
}

describe("the salted hash", () => {
  test("matches its own password only, and two hashes of one password differ (a fresh salt each)", () => {
    const a = hashPassword(PASSWORD);
    const b = hashPassword(PASSWORD);
    expect(a).toMatch(/^scrypt\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(passwordMatches(PASSWORD, a)).toBe(true);
    expect(passwordMatches(PASSWORD, b)).toBe(true);
    expect(passwordMatches("s3cret-pass-two", a)).toBe(false);
    expect(a).not.toContain(PASSWORD);
  });

  test("anything that is not such a hash matches nothing", () => {
    for (const h of ["", PASSWORD, "scrypt$abc", "md5$x$y", `${hashPassword(PASSWORD)}$more`, "scrypt$AAAA$AAAA"]) {
      expect(passwordMatches(PASSWORD, h)).toBe(false);
    }
  });
});

describe("check", () => {
  test("storePassword false: the checked inputs hold a hash of the password, never the password", () => {
    const r = checked({ password: PASSWORD, storePassword: false });
    expect(r.failures).toEqual([]);
    expect(r.inputs.password).toBeUndefined();
    expect(passwordMatches(PASSWORD, r.inputs.passwordHash!)).toBe(true);
    expect(JSON.stringify(r.inputs)).not.toContain(PASSWORD);
    expect(r.withheldPassword).toBe(PASSWORD);
  });

  test("the stored hash is kept while the password matches it, and replaced when it does not", () => {
    const first = checked({ password: PASSWORD, storePassword: false }).inputs;
    const again = checked({ password: PASSWORD, storePassword: false }, first).inputs;
    expect(again.passwordHash).toBe(first.passwordHash);
    const other = checked({ password: "s3cret-pass-two", storePassword: false }, first).inputs;
    expect(other.passwordHash).not.toBe(first.passwordHash);
    expect(passwordMatches("s3cret-pass-two", other.passwordHash!)).toBe(true);
  });

  test("by default, and with storePassword true, the password stays an input and nothing is withheld", () => {
    for (const opt of [{}, { storePassword: true }]) {
      const r = checked({ password: PASSWORD, ...opt });
      expect(r.inputs.password).toBe(PASSWORD);
      expect(r.inputs.passwordHash).toBeUndefined();
      expect(r.withheldPassword).toBeUndefined();
    }
  });

  test("storePassword false without a password fails at preview, naming the property and why", () => {
    const r = checked({ storePassword: false });
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.property).toBe("password");
    expect(r.failures[0]!.reason).toMatch(/^password: is required when storePassword is false/);
    expect(r.failures[0]!.reason).toMatch(/secret output `password`/);
  });

  test("an adopted VM needs no password (nothing is installed)", () => {
    const r = checked({ storePassword: false, adopt: true, vmid: 120 });
    expect(r.failures).toEqual([]);
    expect(r.inputs.passwordHash).toBeUndefined();
  });

  test("a password not known yet (preview) gives a hash not known yet; nothing is withheld", () => {
    const r = checked({ password: UNKNOWN, storePassword: false });
    expect(r.failures).toEqual([]);
    expect(r.inputs.passwordHash).toBe(UNKNOWN);
    expect(r.inputs.password).toBeUndefined();
    expect(r.withheldPassword).toBeUndefined();
  });

  test("a password that is a stack config value is refused with storePassword false, naming the key", () => {
    const options = {
      configKeyOf: (v: string) => (v === PASSWORD ? "app:webPassword" : undefined),
      connectionDefaults: { endpoint: "http://127.0.0.1:9" },
    };
    const r = check({}, { os: "ubuntu", version: "24.04", password: PASSWORD, storePassword: false }, options);
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.property).toBe("password");
    expect(r.failures[0]!.reason).toMatch(
      /^password: comes from stack config app:webPassword, .* keeps the whole stack config/,
    );
    expect(r.failures[0]!.reason).not.toContain(PASSWORD);
    // another password, or storePassword left at true: no failure
    expect(
      check({}, { os: "ubuntu", version: "24.04", password: "other-pass-9", storePassword: false }, options).failures,
    ).toEqual([]);
    expect(check({}, { os: "ubuntu", version: "24.04", password: PASSWORD }, options).failures).toEqual([]);
  });

  test("storePassword must be a boolean", () => {
    const r = checked({ password: PASSWORD, storePassword: "no" });
    expect(r.failures.map((f) => f.property)).toEqual(["storePassword"]);
  });
});

describe("diff", () => {
  const hashed = (password: string, patch: Partial<Record<keyof VmInputs, unknown>> = {}): VmInputs =>
    inputs({ storePassword: false, passwordHash: hashPassword(password), ...patch });
  /** A VM created with storePassword false: the hash in state, no password. */
  const hashedState = (news: VmInputs): VmState => {
    const { passwordHash, ...rest } = news;
    const s = stateOf({ ...rest, password: "placeholder" } as VmInputs, { passwordHash });
    delete (s as { password?: string }).password;
    return s;
  };
  const d = (state: VmState, news: VmInputs) => diff(String(state.vmid), state, news);

  test("the same password, hashed on both sides: no change", () => {
    const news = hashed(PASSWORD);
    expect(d(hashedState(news), news).changes).toBe(false);
  });

  test("another password, hashed on both sides: a replace of password", () => {
    const old = hashedState(hashed(PASSWORD));
    expect(d(old, hashed("s3cret-pass-two")).replaces).toEqual(["password"]);
  });

  test("switching on (stored password -> hash of the same): an update of storePassword only, no replace", () => {
    const old = stateOf(inputs({ password: PASSWORD }));
    const r = d(old, hashed(PASSWORD));
    expect(r.replaces).toEqual([]);
    expect(r.update).toEqual(["storePassword"]);
  });

  test("switching on with another password: a replace", () => {
    const old = stateOf(inputs({ password: PASSWORD }));
    expect(d(old, hashed("s3cret-pass-two")).replaces).toEqual(["password"]);
  });

  test("switching off (hash -> the same password stored): an update; another password: a replace", () => {
    const old = hashedState(hashed(PASSWORD));
    const same = d(old, inputs({ password: PASSWORD }));
    expect(same.replaces).toEqual([]);
    expect(same.update).toEqual(["storePassword"]);
    expect(d(old, inputs({ password: "s3cret-pass-two" })).replaces).toEqual(["password"]);
  });

  test("a generated password switched off without giving it is refused by check, never diffed as no change", () => {
    expect(checked({ storePassword: false }).failures.map((f) => f.property)).toEqual(["password"]);
  });

  test("a hash not known yet (preview) is a replace of password", () => {
    const old = hashedState(hashed(PASSWORD));
    expect(d(old, inputs({ storePassword: false, passwordHash: UNKNOWN })).replaces).toEqual(["password"]);
  });
});
