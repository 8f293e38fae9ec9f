// The plugin's wire: secrets come as Pulumi's signature objects and go back
// marked; the shared calls see plain values and the keys the dynamic provider uses.
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { fromCore, secret, toCore, unwrapSecrets } from "../../provider/plugin/wire-bags";

const s = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });

test("secrets are unwrapped all the way down, other values kept as they are", () => {
  expect(unwrapSecrets({ a: s("x"), b: [s(1), 2], c: { d: s({ e: s("f") }) }, g: null })).toEqual({
    a: "x",
    b: [1, 2],
    c: { d: { e: "f" } },
    g: null,
  });
});

test("toCore takes secrets off and the identity a Vm's inputs keep apart, and drops a dynamic provider's keys", () => {
  expect(toCore({ os: "ubuntu", password: s("pw") })).toEqual({ props: { os: "ubuntu", password: "pw" } });
  // A Vm keeps the identity it was made with (in its inputs), whatever the provider's is now.
  expect(toCore({ os: "ubuntu", __stackIdentity: s("b".repeat(32)) })).toEqual({
    props: { os: "ubuntu" },
    identity: "b".repeat(32),
  });
  // A state written through the dynamic provider (a VM moved between the two ways in).
  expect(toCore({ vmid: 120, __urn: "urn:x", __provider: "exports.handler = ..." })).toEqual({ props: { vmid: 120 } });
  expect(toCore(undefined)).toEqual({ props: {} });
});

test("fromCore marks the outputs' fixed secrets and the request's secret keys", () => {
  const out = fromCore(
    {
      vmid: 120,
      password: "pw",
      passwordHash: "h",
      connection: { endpoint: "http://127.0.0.1:1" },
      user: "ubuntu",
      sshPublicKey: "ssh-ed25519 AAAA me",
      gone: undefined,
      cleared: null,
    },
    { sshPublicKey: s("ssh-ed25519 AAAA me") },
    "outputs",
  );
  expect(out).toEqual({
    vmid: 120,
    password: secret("pw"),
    passwordHash: secret("h"),
    connection: secret({ endpoint: "http://127.0.0.1:1" }),
    user: "ubuntu",
    sshPublicKey: secret("ssh-ed25519 AAAA me"),
    cleared: null,
  });
});

test("a null password (storePassword false) is still marked secret, as on the dynamic provider", () => {
  expect(fromCore({ password: null, user: null }, undefined, "outputs")).toEqual({
    password: secret(null),
    user: null,
  });
});

test("among inputs, the password and the identity are secrets, a password hash is not, a connection with credentials is", () => {
  expect(
    fromCore(
      {
        password: "pw",
        passwordHash: "scrypt$x",
        __stackIdentity: "e".repeat(32),
        connection: { endpoint: "http://h" },
      },
      undefined,
      "inputs",
    ),
  ).toEqual({
    password: secret("pw"),
    passwordHash: "scrypt$x",
    __stackIdentity: secret("e".repeat(32)),
    connection: { endpoint: "http://h" },
  });
  expect(fromCore({ connection: { endpoint: "http://h", token: "t" } }, undefined, "inputs").connection).toEqual(
    secret({ endpoint: "http://h", token: "t" }),
  );
});
