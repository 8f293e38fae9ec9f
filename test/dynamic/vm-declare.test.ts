// Declaring a Vm in a program (Pulumi's own mocks stand in for the engine:
// what is checked here happens in the program, before anything reaches a
// provider): its outputs resolve, the stack-trace limit the constructor
// lowers is always put back, and an error thrown while declaring still
// carries the stack of the `new Vm(...)` that caused it.
import * as pulumi from "@pulumi/pulumi";
import { Vm } from "../../provider";

beforeAll(() => {
  pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: "101", state: { ...args.inputs, vmid: 101, ip: "192.168.0.101" } }),
      call: () => ({}),
    },
    "project",
    "stack",
  );
});

const valueOf = <T>(o: pulumi.Output<T>): Promise<T> => new Promise((resolve) => o.apply(resolve));

test("a Vm's outputs resolve, and the stack-trace limit is the caller's again afterwards", async () => {
  const before = Error.stackTraceLimit;
  const vm = new Vm("web", { os: "ubuntu", version: "24.04", cpu: 2 });
  expect(Error.stackTraceLimit).toBe(before);
  expect(await valueOf(vm.vmid)).toBe(101);
  expect(await valueOf(vm.ip)).toBe("192.168.0.101");
  expect(await valueOf(vm.cpu)).toBe(2);
});

test("an error thrown while declaring keeps a stack that points at the declaration", () => {
  const before = Error.stackTraceLimit;
  let err: unknown;
  try {
    new Vm("", { os: "ubuntu", version: "24.04" });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).stack).toContain("vm-declare.test.ts");
  expect(Error.stackTraceLimit).toBe(before);
});
