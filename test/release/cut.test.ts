// The release cut (scripts/cut.ts) on a copy of the checkout's hand-written
// files: the version goes into package.json and the lock's two root entries,
// "Unreleased" becomes the dated section below a new empty Unreleased, the
// README starter asks for the new range, and the versions check's notes
// (CHANGELOG.md and README.md) agree; a refused cut writes nothing. The
// schema and SDK regeneration it runs after need Go (npm run gen-sdk), held by
// lint's versions check and test/schema.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ROOT } from "../../scripts/engine-env";
import { cutChangelog, setVersion } from "../../scripts/cut";
import { notesProblems } from "../../scripts/versions";

const FILES = ["package.json", "package-lock.json", "CHANGELOG.md", "README.md"];
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-cut-"));
  for (const f of FILES) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (f: string) => fs.readFileSync(path.join(dir, f), "utf8");
const snapshot = () => Object.fromEntries(FILES.map((f) => [f, read(f)]));

test("the checkout itself is cut: CHANGELOG.md and the README name package.json's version", () => {
  expect(notesProblems(ROOT, VERSION)).toEqual([]);
});

test("a cut writes the version into every hand-written place, and only there", () => {
  const before = snapshot();
  expect(setVersion(dir, "7.3.0", "2027-01-02")).toBe(VERSION);
  const pkg = JSON.parse(read("package.json"));
  const lock = JSON.parse(read("package-lock.json"));
  expect([pkg.version, lock.version, lock.packages[""].version]).toEqual(["7.3.0", "7.3.0", "7.3.0"]);
  // Nothing else in either file moved: the same text with the old version put back.
  const back = (f: string) => read(f).split('"version": "7.3.0"').join(`"version": "${VERSION}"`);
  expect(back("package.json")).toBe(before["package.json"]);
  expect(back("package-lock.json")).toBe(before["package-lock.json"]);
  expect(read("README.md")).toContain('"go-pve-qemu-pulumi": ">=7.3.0 <8.0.0"');
  expect(read("CHANGELOG.md")).toContain(`\n## Unreleased\n\n## 7.3.0 (2027-01-02)\n`);
  expect(read("CHANGELOG.md").replace("\n## 7.3.0 (2027-01-02)\n", "")).toBe(before["CHANGELOG.md"]);
  expect(notesProblems(dir, "7.3.0")).toEqual([]);
  // And the check sees the old version's notes as stale in the README.
  expect(notesProblems(dir, VERSION)).toEqual([expect.stringMatching(/^README\.md: /)]);
});

test("Unreleased's lines go to the new section; the new Unreleased is empty", () => {
  const text = "# Changelog\n\n## Unreleased\n\n- a fix\n\n## 0.2.0 (2026-12-07)\n\n- first\n";
  expect(cutChangelog(text, "0.3.0", "2027-02-03")).toBe(
    "# Changelog\n\n## Unreleased\n\n## 0.3.0 (2027-02-03)\n\n- a fix\n\n## 0.2.0 (2026-12-07)\n\n- first\n",
  );
});

test.each([
  ["not a version", "0.3", "2027-01-02", /^0\.3: not a version/],
  ["a bad date", "0.3.0", "2027-1-2", /^--date 2027-1-2: not YYYY-MM-DD/],
  ["the current version", VERSION, "2027-01-02", new RegExp(`^package\\.json is at ${VERSION} already`)],
  ["a version the CHANGELOG has", "0.1.0", "2027-01-02", /^CHANGELOG\.md: already has a section for 0\.1\.0/],
])("refuses %s and writes nothing", (_what, version, date, said) => {
  const before = snapshot();
  expect(() => setVersion(dir, version, date)).toThrow(said);
  expect(snapshot()).toEqual(before);
});

test("refuses a CHANGELOG with no Unreleased heading, writing nothing", () => {
  fs.writeFileSync(path.join(dir, "CHANGELOG.md"), read("CHANGELOG.md").replace("## Unreleased\n", "## Later\n"));
  const before = snapshot();
  expect(() => setVersion(dir, "7.3.0", "2027-01-02")).toThrow(/^CHANGELOG\.md: expected one .*Unreleased.*, found 0/);
  expect(snapshot()).toEqual(before);
});
