// What every consumer of the resource plugin does, whatever its language, in
// one stack and in this order (each step starts from where the last left):
// a failed install, up with its steps shown, an empty preview, refresh, a cpu
// update, destroy. The program (test/consumers/<lang>/) declares one Vm,
// `web` (ubuntu 24.04, 2048 MB), with its cpu from the stack's config `cpu`,
// and reaches the server through `gopveqemu:endpoint` with the secret
// `gopveqemu:token`.
import { newConsumer, type Consumer, type Driver, type Run, type StackConfig } from "./harness";

/** The server's own words when the image URL is not there (the simulator's, as the real server's code writes them). */
const IMAGE_URL_404 = "OS image URL is not accessible: failed to access URL: 404 Not Found";

const TOKEN = "tok-consumer-4e9b2c7d1a";

/** The output, for a failed expectation's message. */
function shown(run: Run): string {
  return `exit ${run.code}\n${run.output.slice(-4000)}`;
}

export function sixThings(label: string, driver: () => Promise<Driver> | Driver): void {
  describe(`${label} consumer of the gopveqemu plugin`, () => {
    let consumer: Consumer;
    let config: StackConfig;
    let vmid: number;
    beforeAll(async () => {
      // The first run may build the language's toolchain (minutes, once; cached after).
      consumer = await newConsumer(await driver());
      config = { "gopveqemu:endpoint": consumer.endpoint, "gopveqemu:token": { secret: TOKEN }, cpu: "1" };
      await consumer.setConfig(config);
    }, 900_000);
    afterAll(() => consumer?.dispose());

    it("fails the deployment of a failed install with the server's words, and leaves no VM anywhere", async () => {
      consumer.sim.addFault({ op: "install", step: "validating OS image URL", kind: "fail" });
      const run = await consumer.run("up");
      consumer.sim.clearFaults();
      expect({ failed: run.code !== 0, said: run.output.includes(IMAGE_URL_404) }).toEqual({
        failed: true,
        said: true,
      });
      expect(consumer.sim.vms()).toEqual([]);
      expect(consumer.vms()).toEqual([]);
    });

    it("runs up: the VM is made as declared, and the install's steps are shown as they happen", async () => {
      const run = await consumer.run("up");
      expect(run.code).toBe(0);
      // While it ran: the Vm's row in the progress display carried the provider's messages.
      expect(run.output).toMatch(/gopveqemu:index:Vm web creating \(\d+s\) (installing|install \[)/);
      // In full: the step names and the [k/n] numbering of the install's progress.
      expect(run.output).toMatch(/VM creation > creating VM/);
      expect(run.output).toMatch(/VM initialization > finalizing/);
      expect(run.output).toMatch(/\[1\/\d+\]/);
      const onServer = consumer.sim.vms();
      expect(
        onServer.map((v) => ({ name: v.name, os: v.os, cpu: v.cpu, memoryMb: v.memoryMb, running: v.running })),
      ).toEqual([{ name: expect.stringMatching(/^web/), os: "ubuntu", cpu: 1, memoryMb: 2048, running: true }]);
      vmid = onServer[0]!.vmid;
      const inState = consumer.vms();
      expect(inState.map((r) => [r.id, r.outputs.vmid, r.outputs.cpu])).toEqual([[String(vmid), vmid, 1]]);
      // The secret token of the stack's config is what every request carried.
      expect(consumer.authorizations()).toEqual([`Bearer ${TOKEN}`]);
    });

    it("previews no change right after up (preview --expect-no-changes)", async () => {
      const run = await consumer.run("preview");
      expect(run.code === 0 ? "" : shown(run)).toBe("");
    });

    it("refreshes from the server: a cpu changed behind Pulumi's back is in state after refresh", async () => {
      consumer.sim.mutateVm(vmid, { cpu: 3 });
      const run = await consumer.run("refresh");
      expect(run.code === 0 ? "" : shown(run)).toBe("");
      expect(consumer.vms().map((r) => r.outputs.cpu)).toEqual([3]);
    });

    it("updates the cpu in place: the VM keeps its VMID, is set from what refresh found and runs again", async () => {
      config = { ...config, cpu: "2" };
      await consumer.setConfig(config);
      const run = await consumer.run("up");
      expect(run.code === 0 ? "" : shown(run)).toBe("");
      expect(run.output).toMatch(/set cpu 3 -> 2/);
      expect(consumer.sim.vms().map((v) => ({ vmid: v.vmid, cpu: v.cpu, running: v.running }))).toEqual([
        { vmid, cpu: 2, running: true },
      ]);
      expect(consumer.vms().map((r) => [r.id, r.outputs.cpu])).toEqual([[String(vmid), 2]]);
    });

    it("destroys: the VM is gone from the server and from state", async () => {
      const run = await consumer.run("destroy");
      expect(run.code === 0 ? "" : shown(run)).toBe("");
      expect(consumer.sim.vms()).toEqual([]);
      expect(consumer.vms()).toEqual([]);
    });

    it("never showed the token or the VM's password, nor kept them in plaintext state, in any of its runs", () => {
      const passwords = consumer.sim.installs().map((i) => i.cipassword);
      expect(passwords.length).toBeGreaterThan(0);
      const secrets = [TOKEN, ...passwords];
      const printed = consumer.printed();
      const state = consumer.stateText();
      expect(state).not.toBe("");
      expect(secrets.filter((s) => printed.includes(s) || state.includes(s))).toEqual([]);
    });
  });
}
