// What an install writes to this machine's journal, against the simulator:
// its VMID as soon as the server names it, the phases it stays in while it
// stays in them, and nothing for the steps it has already left. The kill
// recoveries that read these entries are in interrupted.int.test.ts.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { create } from "../../provider/lifecycle";
import { fileJournal } from "../../provider/lifecycle/model/journal";
import type { InstallJournal, JournalEntry } from "../../provider/lifecycle/model/journal";
import { startHarness } from "./harness";
import type { Harness } from "./harness";

const URN = "urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::web";
const ID = "c0ffee00c0ffee00c0ffee00c0ffee00";

let h: Harness | undefined;
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-journal-writes-"));
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Put {
  entry: JournalEntry;
  /** VMs on the server at the put */
  vms: number;
  /** when it was put (the real clock, as the lifecycle's without a clock of the test's) */
  at: number;
}

/** The file journal, with every put kept, and how many VMs the server had at that moment. */
function recording(sim: Harness["sim"]): { journal: InstallJournal; puts: Put[] } {
  const real = fileJournal(dir);
  const puts: Put[] = [];
  return {
    puts,
    journal: {
      get: (identity, urn) => real.get(identity, urn),
      put: (entry) => {
        puts.push({ entry, vms: sim.vms().length, at: Date.now() });
        return real.put(entry);
      },
      remove: (identity, urn) => real.remove(identity, urn),
    },
  };
}

test("an install whose steps come at once writes its entry once, with its VMID, and removes it when handed back", async () => {
  h = await startHarness({ durationsZero: true });
  const r = recording(h.sim);
  const { state } = await create(h.inputs(), h.ctx({ urn: URN, identity: ID, journal: r.journal }));
  // Its stream showed every phase (17 steps); none lasted long enough to be worth a write. A loaded machine
  // may stall the stream for a second or two, and then a phase is written: never one per step.
  expect(r.puts.length).toBeGreaterThanOrEqual(1);
  expect(r.puts.length).toBeLessThanOrEqual(3);
  expect(r.puts[0]!.entry).toMatchObject({ identity: ID, urn: URN, vmid: state.vmid, os: "ubuntu" });
  expect(fs.readdirSync(dir)).toEqual([]);
});

test("a pinned VMID is written before the install is sent; the server naming the same VMID writes nothing more", async () => {
  h = await startHarness({ durationsZero: true });
  const r = recording(h.sim);
  await create(h.inputs({ vmid: 140 }), h.ctx({ urn: URN, identity: ID, journal: r.journal }));
  expect(r.puts[0]).toMatchObject({ entry: { vmid: 140 }, vms: 0 });
  expect(r.puts[0]!.entry.reached).toBeUndefined(); // sent, nothing heard yet
  expect(r.puts.length).toBeLessThanOrEqual(3);
  expect(r.puts.every((p) => p.entry.vmid === 140)).toBe(true);
});

test("a phase the install stays in is written while it lasts: the download, before the VM exists", async () => {
  // A download of 2 s of real time (4,000 simulated s at speed 2000), every other step at once.
  h = await startHarness({ durationsZero: true, durations: { downloadImage: 4_000_000 } });
  const r = recording(h.sim);
  const { state } = await create(h.inputs(), h.ctx({ urn: URN, identity: ID, journal: r.journal }));
  const during = r.puts.find((p) => p.entry.reached?.phase === "download");
  expect(during).toMatchObject({ entry: { vmid: state.vmid }, vms: 0 });
  // The phase's time is when the stream showed it, not when it was written (a second later at the earliest).
  expect(during!.at - during!.entry.reached!.at).toBeGreaterThanOrEqual(900);
  expect(r.puts.length).toBeLessThanOrEqual(5);
});
