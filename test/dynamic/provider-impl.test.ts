// The glue's own behaviour, without the engine: settings from stack config,
// and a bad setting failing every later call instead of being bypassed.
import type * as pulumi from "@pulumi/pulumi";

type Impl = typeof import("../../provider/dynamic/provider-impl");

function configRequest(values: Record<string, string>): pulumi.dynamic.ConfigureRequest {
  return { config: { get: (key: string) => values[key] } } as unknown as pulumi.dynamic.ConfigureRequest;
}

/** A fresh copy of the module (its settings are module state, as in the provider process). */
function freshImpl(): Impl {
  let impl: Impl | undefined;
  jest.isolateModules(() => {
    impl = require("../../provider/dynamic/provider-impl") as Impl;
  });
  return impl!;
}

const vm = { os: "ubuntu", version: "24.04", __provider: "serialized", __urn: "urn:pulumi:s::p::t::web" };

describe("provider-impl settings", () => {
  const saved = { ...process.env };
  beforeEach(() => {
    delete process.env.GO_PVE_QEMU_ENDPOINT;
    delete process.env.GO_PVE_QEMU_TOKEN;
  });
  afterAll(() => {
    process.env = saved;
  });

  it("takes the endpoint from stack config, and keeps the engine's keys on the checked inputs", async () => {
    const impl = freshImpl();
    await impl.configure(configRequest({ "goPveQemu:endpoint": "http://127.0.0.1:1" }));
    const result = await impl.check({}, vm);
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ os: "ubuntu", __provider: "serialized", __urn: vm.__urn });
  });

  it("reports a missing endpoint at check, naming the three ways to set it", async () => {
    const impl = freshImpl();
    await impl.configure(configRequest({}));
    const result = await impl.check({}, vm);
    expect((result.failures ?? []).map((f) => f.reason).join("\n")).toMatch(
      /connection\.endpoint.*goPveQemu:endpoint.*GO_PVE_QEMU_ENDPOINT/s,
    );
  });

  it("fails configure on a bad value, naming the key, and every later call with it", async () => {
    process.env.GO_PVE_QEMU_ENDPOINT = "http://127.0.0.1:2";
    const impl = freshImpl();
    const bad = configRequest({ "goPveQemu:endpoint": "http://127.0.0.1:1", "goPveQemu:pollIntervalMs": "soon" });
    const message =
      'config goPveQemu:pollIntervalMs: "soon" is not allowed; expected a whole number of milliseconds > 0';
    await expect(impl.configure(bad)).rejects.toThrow(message);
    await expect(impl.check({}, vm)).rejects.toThrow(message);
    await expect(impl.create(vm)).rejects.toThrow(message);
    await expect(impl.read("101", { ...vm, vmid: 101 })).rejects.toThrow(message);
  });
});
