// Auto-assigned VMIDs. The server probes candidates from both ends of the
// range at once and takes the first free answer (vmidPick "probe", the
// default); a VMID is chosen at `checking VMID` but taken only at `creating
// VM`, so two installs can still pick the same one and the second fails at VM
// creation. vmidPick "lowest" makes that collision deterministic.
import { Rng } from "../../simulator/random";
import { candidateOrder, probeVmid, type ProbeCluster } from "../../simulator/vmid-probe";
import { ev, frames, lines, open, request, useSimulators, UBUNTU, CLOSE } from "./helpers";

const start = useSimulators();

const assigned = (body: string): number => {
  const m = /auto-assigned VMID: (\d+) /.exec(body);
  if (!m) throw new Error(`no auto-assigned VMID in ${body.slice(0, 300)}`);
  return Number(m[1]);
};

const empty = (taken: number[] = [], answering: number[] = []): ProbeCluster => ({
  start: 100,
  end: 254,
  taken: (v) => taken.includes(v),
  answers: (v) => answering.includes(v),
});

describe("the server's VMID probing", () => {
  test("candidates are probed from both ends of the range inwards", () => {
    expect(candidateOrder(100, 104)).toEqual([100, 104, 101, 103, 102]);
    expect(candidateOrder(0, 0).slice(0, 4)).toEqual([100, 254, 101, 253]);
    // The clamps apply before the swap, as in assignIP.go: 300 stays a candidate.
    expect(candidateOrder(300, 250).slice(0, 2)).toEqual([250, 300]);
  });

  test("the first free answer wins, not the lowest free VMID: picks come from both ends", () => {
    const rng = new Rng(7);
    const picks = Array.from({ length: 40 }, () => probeVmid(empty(), rng)?.vmid ?? 0);
    expect(picks.some((v) => v !== 100)).toBe(true);
    expect(picks.some((v) => v < 177)).toBe(true);
    expect(picks.some((v) => v > 177)).toBe(true);
    expect(picks.every((v) => v >= 100 && v <= 254)).toBe(true);
  });

  test("the same seed gives the same picks; another seed other picks", () => {
    const run = (seed: number): number[] => {
      const rng = new Rng(seed);
      return Array.from({ length: 10 }, () => probeVmid(empty(), rng)?.vmid ?? 0);
    };
    expect(run(3)).toEqual(run(3));
    expect(run(3)).not.toEqual(run(4));
  });

  test("a VMID with a config or an IP answering on port 22 is never picked; none free is null", () => {
    const rng = new Rng(1);
    const taken = candidateOrder(100, 254).filter((v) => v !== 180 && v !== 181);
    for (let i = 0; i < 20; i++) {
      expect(probeVmid(empty(taken, [181]), rng)?.vmid).toBe(180);
    }
    expect(probeVmid(empty(candidateOrder(100, 254)), rng)).toBeNull();
  });

  test("installs without id get the probe's pick, pinned by the simulator's seed", async () => {
    const pick = async (seed: number): Promise<number[]> => {
      const sim = await start({ seed, sshKey: true, imageCache: ["ubuntu/24.04"] });
      const out: number[] = [];
      for (let i = 0; i < 3; i++) {
        out.push(assigned((await request(sim.url, "POST", "/api/vm/install", { body: UBUNTU })).body));
      }
      return out;
    };
    const a = await pick(11);
    expect(await pick(11)).toEqual(a);
    expect(new Set(a).size).toBe(3);
  });

  test("a full range fails at checking VMID the server's way", async () => {
    const sim = await start({ assignIpStart: 120, assignIpEnd: 121, vms: [{ vmid: 120 }, { vmid: 121 }] });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: UBUNTU });
    expect(frames(r.body).slice(-2)).toEqual([
      ev("preparation > checking VMID", "error", "[-] failed to find free VMID: cannot find available IP"),
      CLOSE,
    ]);
  });

  test("two installs started together usually get different VMIDs; with one candidate they collide", async () => {
    const sim = await start({ seed: 5, sshKey: true, durations: { downloadImage: 300_000 } });
    const first = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "a" } });
    const second = open(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "b" } });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(assigned(a.body)).not.toBe(assigned(b.body));
    expect(sim.stats().vmidCollisions).toBe(0);

    const narrow = await start({ sshKey: true, assignIpStart: 140, assignIpEnd: 140 });
    const x = open(narrow.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "x" } });
    const y = open(narrow.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "y" } });
    const [rx, ry] = await Promise.all([x.done, y.done]);
    expect([assigned(rx.body), assigned(ry.body)]).toEqual([140, 140]);
    expect(narrow.vms().map((v) => v.vmid)).toEqual([140]);
    expect(narrow.stats()).toMatchObject({ installsSucceeded: 1, installsFailed: 1, vmidCollisions: 1 });
  });
});

describe("auto-assigned VMIDs, lowest free (vmidPick: lowest)", () => {
  test("two installs without id started close together: the second loses at creating VM", async () => {
    // The image download sits between the VMID choice and the VM's creation.
    const sim = await start({ vmidPick: "lowest", sshKey: true, durations: { downloadImage: 300_000 } });
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
    const sim = await start({ vmidPick: "lowest", sshKey: true });
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

  test("the pick can change while the server runs: lowest from now on, then the probe again", async () => {
    // With VMs at 100, 101 and 103, the lowest free VMID is 102; this seed's probe picks another.
    const vms = [{ vmid: 100 }, { vmid: 101 }, { vmid: 103 }];
    const sim = await start({ seed: 2, sshKey: true, imageCache: ["ubuntu/24.04"], vms });
    const install = async (name: string): Promise<number> =>
      assigned((await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name } })).body);
    const probed = await install("p");
    expect(probed).not.toBe(102);
    sim.settings({ vmidPick: "lowest" });
    expect(await install("l")).toBe(102);
    expect(await install("m")).toBe(104);
    sim.settings({ vmidPick: "probe" });
    expect(await install("q")).not.toBe(105);
    expect(() => sim.settings({ vmidPick: "highest" } as never)).toThrow(/vmidPick/);
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
