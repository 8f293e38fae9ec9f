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
import { INPUT_BEHAVIOUR, REPLACES_THE_VM } from "../../provider/lifecycle/model/input-behaviour";
import { behaviourMismatches, inputTable } from "../../scripts/input-table";

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

test("the on-change column starts with each input's declared behaviour", () => {
  const rows = inputTable().split("\n").slice(2);
  const said = (key: string) =>
    rows
      .find((r) => r.startsWith(`| \`${key}\` `))!
      .split("|")[5]!
      .trim();
  expect(said("os")).toBe("replace");
  expect(said("vmid")).toBe("replace: delete first (the VMID is taken)");
  expect(said("cpu")).toBe("update with downtime: shutdown, `set/cpu`, start");
  expect(said("running")).toBe("update: `start` or graceful `shutdown`");
  expect(said("storePassword")).toMatch(/^update of the state only: /);
  expect(said("adopt")).toBe("never a change: see below");
  for (const key of INPUT_KEYS) {
    const start = {
      replace: "replace",
      downtime: "update with downtime",
      "in-place": "update: ",
      "state-only": "update of the state only",
      never: "never a change",
    }[INPUT_BEHAVIOUR[key]];
    expect(said(key).startsWith(start)).toBe(true);
  }
});

describe("the descriptions against the declared behaviours", () => {
  test("agree as they are", () => {
    expect(behaviourMismatches()).toEqual([]);
  });

  test("a replace input that does not say so, another that does, and a stale downtime list are each reported", () => {
    const described = Object.fromEntries(INPUT_KEYS.map((k) => [k, ""])) as Record<(typeof INPUT_KEYS)[number], string>;
    described.os = "The operating system.";
    for (const k of ["version", "name", "vmid", "user", "password", "sshPublicKey"] as const)
      described[k] = REPLACES_THE_VM;
    described.cpu = `vCPUs. ${REPLACES_THE_VM}`;
    described.allowDowntime = "false: a change that would shut it down (cpu, memoryMb) is refused.";
    expect(behaviourMismatches(described)).toEqual([
      `os: declared replace, but its description does not say "${REPLACES_THE_VM}"`,
      `cpu: declared downtime, but its description says "${REPLACES_THE_VM}"`,
      "allowDowntime: its description does not name the downtime inputs as declared: (cpu, memoryMb, diskGb, node, rebootTriggers)",
    ]);
  });
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
