// The engine's marker for a value not known yet is translated to the
// lifecycle's and back: the lifecycle knows nothing of Pulumi's.
import { unknownValue } from "@pulumi/pulumi/runtime/rpc";
import { UNKNOWN } from "../../provider/lifecycle";
import { unknownsOf } from "../../provider/core/unknowns";

const { fromEngine, toEngine } = unknownsOf(unknownValue);

type Impl = typeof import("../../provider/dynamic/provider-impl");

test("the two markers differ, and a round trip keeps every value", () => {
  expect(UNKNOWN).not.toBe(unknownValue);
  const bag = {
    cpu: unknownValue,
    rebootTriggers: ["a", unknownValue],
    connection: { endpoint: unknownValue },
    os: "ubuntu",
  };
  const inside = fromEngine(bag);
  expect(inside).toEqual({
    cpu: UNKNOWN,
    rebootTriggers: ["a", UNKNOWN],
    connection: { endpoint: UNKNOWN },
    os: "ubuntu",
  });
  expect(toEngine(inside)).toEqual(bag);
});

test("check at preview: an unknown input is not validated, and goes back to the engine as the engine's marker", async () => {
  let impl: Impl | undefined;
  jest.isolateModules(() => {
    impl = require("../../provider/dynamic/provider-impl") as Impl;
  });
  await impl!.configure({
    config: { get: (k: string) => (k === "goPveQemu:endpoint" ? "http://127.0.0.1:1" : undefined) },
  } as never);
  const result = await impl!.check(
    {},
    { os: "ubuntu", version: "24.04", cpu: unknownValue, __urn: "urn:pulumi:s::p::t::web" },
  );
  expect(result.failures).toEqual([]);
  expect(result.inputs).toMatchObject({ cpu: unknownValue });
  const d = await impl!.diff(
    "101",
    { vmid: 101, cpu: 2, inputs: { os: "ubuntu", version: "24.04", cpu: 2 } },
    { os: "ubuntu", version: "24.04", cpu: unknownValue },
  );
  expect(d.changes).toBe(true);
});
