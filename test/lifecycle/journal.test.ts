// This machine's install journal on disk: whole entries, a folder made when
// a write finds it missing, old entries pruned once per journal, and the
// file-system calls a write costs.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileJournal } from "../../provider/lifecycle/model/journal";
import type { JournalEntry } from "../../provider/lifecycle/model/journal";

// Every function of node:fs, counted: the journal's calls are the only ones made while it runs.
const mockCounted: Record<string, number> = {};
jest.mock("node:fs", () => {
  const real = jest.requireActual<Record<string, unknown>>("node:fs");
  return Object.fromEntries(
    Object.entries(real).map(([k, v]) => [
      k,
      typeof v === "function"
        ? (...args: unknown[]) => {
            mockCounted[k] = (mockCounted[k] ?? 0) + 1;
            return (v as (...a: unknown[]) => unknown)(...args);
          }
        : v,
    ]),
  );
});

const ID = "c0ffee00c0ffee00c0ffee00c0ffee00";
const urn = (name: string): string => `urn:pulumi:dev::fleet::pulumi-nodejs:dynamic/goPveQemu:Vm::${name}`;
const entry = (name: string, patch: Partial<JournalEntry> = {}): JournalEntry => ({
  identity: ID,
  urn: urn(name),
  endpoint: "http://pve:8080",
  name,
  vmid: 120,
  startedAt: 1_700_000_000_000,
  os: "ubuntu",
  ...patch,
});

let base: string;
let dir: string;
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-journal-unit-"));
  dir = path.join(base, "installs");
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const files = (): string[] => fs.readdirSync(dir).sort();

/** The calls to node:fs by name while `f` runs. */
async function calls(f: () => Promise<unknown>): Promise<Record<string, number>> {
  for (const k of Object.keys(mockCounted)) delete mockCounted[k];
  await f();
  return { ...mockCounted };
}

test("an entry is read back as written, only by its own identity and URN; removed, it is gone", async () => {
  const j = fileJournal(dir);
  const e = entry("web", { reached: { phase: "download", at: 1_700_000_001_000 } });
  await j.put(e);
  expect(await j.get(ID, urn("web"))).toEqual(e);
  expect(await j.get("7e57ab1e7e57ab1e7e57ab1e7e57ab1e", urn("web"))).toBeUndefined();
  expect(await j.get(ID, urn("db"))).toBeUndefined();
  expect(files()).toHaveLength(1); // no temporary file left beside it
  expect(fs.statSync(path.join(dir, files()[0]!)).mode & 0o777).toBe(0o600);
  await j.remove(ID, urn("web"));
  expect(await j.get(ID, urn("web"))).toBeUndefined();
  expect(files()).toEqual([]);
});

test("a damaged entry is no evidence", async () => {
  const j = fileJournal(dir);
  await j.put(entry("web"));
  fs.writeFileSync(path.join(dir, files()[0]!), '{"identity":');
  expect(await j.get(ID, urn("web"))).toBeUndefined();
});

test("a write costs a temporary file and a rename, a removal one call; the same entry again costs nothing; a changed one is written", async () => {
  const j = fileJournal(dir);
  await j.put(entry("first")); // the first write of the journal: the folder made, the prune
  expect(await calls(() => j.put(entry("web")))).toEqual({ writeFileSync: 1, renameSync: 1 });
  expect(await calls(() => j.put(entry("web")))).toEqual({});
  expect(await calls(() => j.put(entry("web", { vmid: 121 })))).toEqual({ writeFileSync: 1, renameSync: 1 });
  expect((await j.get(ID, urn("web")))?.vmid).toBe(121);
  // Removed (one call; an entry that is not there is removed too), the same entry is written again.
  expect(await calls(() => j.remove(ID, urn("web")))).toEqual({ unlinkSync: 1 });
  await expect(j.remove(ID, urn("never-written"))).resolves.toBeUndefined();
  await j.put(entry("web", { vmid: 121 }));
  expect((await j.get(ID, urn("web")))?.vmid).toBe(121);
});

test("the folder is made when a write finds it missing, at first and after it was removed", async () => {
  const j = fileJournal(dir);
  expect(fs.existsSync(dir)).toBe(false);
  await j.put(entry("web"));
  expect(files()).toHaveLength(1);
  fs.rmSync(dir, { recursive: true });
  await j.put(entry("web", { vmid: 121 }));
  expect((await j.get(ID, urn("web")))?.vmid).toBe(121);
});

test("entries older than a week are pruned at the journal's first write, once: the folder is read once per journal", async () => {
  fs.mkdirSync(dir, { recursive: true });
  const stale = path.join(dir, "0".repeat(32) + ".json");
  const young = path.join(dir, "1".repeat(32) + ".json");
  for (const f of [stale, young]) fs.writeFileSync(f, "{}");
  const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3_600_000);
  fs.utimesSync(stale, eightDaysAgo, eightDaysAgo);
  const j = fileJournal(dir);
  const first = await calls(() => j.put(entry("web")));
  expect(first.readdirSync).toBe(1);
  expect(fs.existsSync(stale)).toBe(false);
  expect(fs.existsSync(young)).toBe(true);
  // Later writes read no folder and stat no file, however many entries it holds.
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(dir, `${String(i).padStart(32, "2")}.json`), "{}");
  const later = await calls(async () => {
    for (let i = 0; i < 5; i++) await j.put(entry(`vm${i}`));
  });
  expect(later).toEqual({ writeFileSync: 5, renameSync: 5 });
});
