// scripts/schema.ts writes schema/schema.json from the zod schemas, and lint's
// --check fails when the committed file is stale or when a JSDoc (what
// editors show) and the zod description beside it (what the SDKs carry) differ.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";
import { docMismatches, schemaText } from "../../scripts/schema";

const exec = promisify(execFile);
const script = path.join(ROOT, "dist", "scripts", "schema.js");
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-schema-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the committed schema is the one the zod schemas make, at package.json's version", () => {
  const committed = fs.readFileSync(path.join(ROOT, "schema", "schema.json"), "utf8");
  expect(committed).toBe(schemaText());
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
  expect(JSON.parse(committed)).toMatchObject({ name: "gopveqemu", version });
});

test("--check passes as it is; fails on a stale file, which a rewrite makes current", async () => {
  await expect(exec("node", [script, "--check"])).resolves.toBeDefined();
  const copy = path.join(dir, "schema.json");
  fs.writeFileSync(copy, schemaText().replace('"Memory in MB. Updated in place."', '"Memory."'));
  await expect(exec("node", [script, "--check", "--out", copy])).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining(`${copy}: not current; run \`npm run schema\``),
  });
  await exec("node", [script, "--out", copy]);
  expect(fs.readFileSync(copy, "utf8")).toBe(schemaText());
});

describe("JSDoc and zod descriptions", () => {
  test("agree in the provider's documented schemas", () => {
    expect(docMismatches()).toEqual([]);
  });

  test("a JSDoc that says something else, or one without a description, is reported by key", () => {
    fs.mkdirSync(path.join(dir, "p"), { recursive: true });
    fs.writeFileSync(
      path.join(dir, "p", "s.ts"),
      [
        "const S = z.object({",
        "  /** Same words,",
        "   * over two lines. */",
        '  ok: z.string().optional().meta({ description: "Same words, over two lines." }),',
        "  /** Old words. */",
        '  drifted: z.number().meta({ description: "New words." }),',
        "  /** Only here. */",
        "  bare: z.boolean(),",
        '  undocumented: z.string().meta({ description: "no JSDoc: not checked" }),',
        "});",
      ].join("\n"),
    );
    expect(docMismatches(dir, ["p/s.ts"])).toEqual([
      "p/s.ts: drifted: the JSDoc and .meta({ description }) differ",
      "p/s.ts: bare: JSDoc but no .meta({ description })",
    ]);
  });
});
