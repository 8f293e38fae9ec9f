// Bad inputs are caught by `pulumi preview`, through the real engine: every
// bad property named with what is allowed, nothing sent to the server.
import { newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

describe("preview of bad inputs", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await newFleet();
  });
  afterAll(() => fleet.dispose());

  it("fails with every bad property and its allowed values, and touches no VM", async () => {
    // The engine stops at the first resource that fails its check; within one
    // resource, every bad property is reported.
    await fleet.setVms({
      bad: { os: "ubuntu", version: "23.04", cpu: 64, memoryMb: 100, vmid: 99, name: "bad_name!" },
    });
    const requests = fleet.sim.stats().requests;
    const previewError = () =>
      fleet.preview().then(
        () => "preview succeeded",
        (err: unknown) => String(err),
      );
    const message = await previewError();
    for (const expected of [
      'version: "23.04" is not supported for ubuntu; allowed 20.04, 22.04, 24.04',
      "cpu: 64 is out of range; allowed 1..32",
      "memoryMb: 100 is out of range; allowed 512..32768",
      "vmid: 99 is out of range; allowed 100..254",
      'name: "bad_name!" is not allowed',
    ]) {
      expect(message).toContain(expected);
    }
    await fleet.setVms({ alsoBad: { os: "fedora", version: "40" } });
    expect(await previewError()).toContain('os: "fedora" is not supported; allowed debian, ubuntu, rockylinux');
    expect(fleet.sim.stats().requests).toEqual(requests);
    expect(fleet.sim.vms()).toEqual([]);
  });

  it("fails when no endpoint is set anywhere, saying how to set one", async () => {
    await fleet.stack.removeConfig("goPveQemu:endpoint");
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04" } });
    await expect(fleet.preview()).rejects.toThrow(/goPveQemu:endpoint/);
    await fleet.stack.setConfig("goPveQemu:endpoint", { value: fleet.sim.url });
  });

  it("fails a disk shrink at preview", async () => {
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", vmid: 140, diskGb: 40 } });
    await fleet.up();
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", vmid: 140, diskGb: 32 } });
    await expect(fleet.preview()).rejects.toThrow(/diskGb cannot shrink from 40 to 32/);
    expect(fleet.sim.vm(140)!.diskGb).toBe(40);
  });
});
