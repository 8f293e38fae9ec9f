// The auto-assigned VMID race: a VMID is chosen at `checking VMID` but taken
// only at `creating VM`, so a second install started in between picks the same
// one and fails at VM creation. Started after `creating VM`, it does not.
import { ev, frames, lines, open, useSimulators, UBUNTU, CLOSE } from "./helpers";

const start = useSimulators();

describe("auto-assigned VMIDs", () => {
  test("two installs without id started close together: the second loses at creating VM", async () => {
    // The image download sits between the VMID choice and the VM's creation.
    const sim = await start({ sshKey: true, durations: { downloadImage: 300_000 } });
    const first = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "a" } });
    await first.waitFor("auto-assigned VMID");
    const second = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "b" } });
    const [a, b] = await Promise.all([first.done, second.done]);

    expect(lines(a.body)).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 100 (0.02s)");
    expect(lines(b.body)).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 100 (0.02s)");
    expect(lines(a.body)).toContain("VM initialization > finalizing|success|[*] VMID: 100");
    expect(frames(b.body).slice(-3)).toEqual([
      ev("VM creation > creating VM", "processing", "[*] VM creation"),
      ev("VM creation > creating VM", "error", "[-] failed to create VM: exit status 255"),
      CLOSE,
    ]);
    expect(sim.vms().map((v) => [v.vmid, v.name])).toEqual([[100, "a-100"]]);
    expect(sim.stats()).toMatchObject({
      installsStarted: 2,
      installsSucceeded: 1,
      installsFailed: 1,
      vmidCollisions: 1,
    });
  });

  test("a second install started after the first passed creating VM gets the next VMID", async () => {
    const sim = await start({ sshKey: true });
    const first = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "a" } });
    await first.waitFor("[+] VM created successfully");
    const second = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "b" } });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(lines(a.body)).toContain("VM initialization > finalizing|success|[*] VMID: 100");
    expect(lines(b.body)).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 101 (0.02s)");
    expect(lines(b.body)).toContain("VM initialization > finalizing|success|[*] VMID: 101");
    expect(sim.vms().map((v) => [v.vmid, v.name])).toEqual([
      [100, "a-100"],
      [101, "b-101"],
    ]);
    expect(sim.stats().vmidCollisions).toBe(0);
  });

  test("two first installs on a fresh server: the second cannot create the key the first just made", async () => {
    const sim = await start({ imageCache: ["ubuntu/24.04"], durations: { sshKeyCreate: 200_000 } });
    const first = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 110 } });
    await first.waitFor("[*] create SSH key");
    const second = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 111 } });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(lines(a.body)).toContain(
      "SSH preparation > creating SSH key|success|[+] completed SSH preparation (200.00s)",
    );
    expect(frames(b.body).slice(-2)).toEqual([
      ev("SSH preparation > creating SSH key", "error", "[-] failed to create SSH key: exit status 1"),
      CLOSE,
    ]);
  });
});
