// The README's input table is generated from the input schema and its limits,
// and npm test's lint fails when the README's copy is not the generated one.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { INPUT_KEYS } from "../../provider/lifecycle/model/inputs";
import { LIMITS } from "../../provider/lifecycle/model/input-rules";
import { ROOT } from "../../scripts/engine-env";
import { inputTable } from "../../scripts/input-table";

const exec = promisify(execFile);
const script = path.join(ROOT, "dist", "scripts", "input-table.js");
const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

test("one row per input, in schema order, with the limits from LIMITS", () => {
  const rows = inputTable().split("\n").slice(2);
  expect(rows.map((r) => r.split("|")[1]!.trim())).toEqual(INPUT_KEYS.map((k) => `\`${k}\``));
  const row = (key: string) => rows.find((r) => r.startsWith(`| \`${key}\` `))!;
  expect(row("cpu")).toContain(`${LIMITS.cpu.min}..${LIMITS.cpu.max}`);
  expect(row("vmid")).toContain(`${LIMITS.vmid.min}..${LIMITS.vmid.max}`);
  expect(row("name")).toContain(`at most ${LIMITS.nameMax}`);
  expect(row("rebootTriggers")).toContain("string[]");
  expect(row("password")).toContain("secret string");
  // Both secret marks come from the inputs' zod metadata.
  expect(row("connection")).toContain("secret object");
  expect(row("cpu")).not.toContain("secret");
});

describe("the check (compiled script, as lint runs it)", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-readme-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("passes on the README as it is", async () => {
    await expect(exec("node", [script, "--check"])).resolves.toBeDefined();
  });

  test("fails on a stale table, and the rewrite restores the generated one", async () => {
    const copy = path.join(dir, "README.md");
    const stale = readme.replace(/\| 1\.\.32( +)\|/, "| 1..64$1|");
    expect(stale).not.toBe(readme);
    fs.writeFileSync(copy, stale);
    await expect(exec("node", [script, "--check", "--readme", copy])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("the table of Vm inputs is not current; run `npm run inputs-table`"),
    });
    await exec("node", [script, "--readme", copy]);
    expect(fs.readFileSync(copy, "utf8")).toBe(readme);
  });

  test("fails on a README without the markers", async () => {
    const copy = path.join(dir, "no-markers.md");
    fs.writeFileSync(copy, "# no table here\n");
    await expect(exec("node", [script, "--check", "--readme", copy])).rejects.toMatchObject({
      stderr: expect.stringContaining("markers"),
    });
  });
});
