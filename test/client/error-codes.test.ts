// One registry of error codes: every GPQ_ code written anywhere in provider/
// is declared in it (the code fields are typed by it; this catches a code
// compared or documented as text), and each one's meaning and next step is on
// the troubleshooting page.
import * as fs from "node:fs";
import * as path from "node:path";
import { ERROR_CODES } from "../../provider/client";

const ROOT = path.join(__dirname, "..", "..");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

test("every GPQ_ code in provider/ is in the registry", () => {
  const unknown = sources(path.join(ROOT, "provider")).flatMap((file) =>
    [...fs.readFileSync(file, "utf8").matchAll(/\bGPQ_[A-Z_]+\b/g)]
      .map((m) => m[0])
      .filter((c) => !(c in ERROR_CODES))
      .map((c) => `${path.relative(ROOT, file)}: ${c}`),
  );
  expect(unknown).toEqual([]);
});

test("every code of the registry is on the troubleshooting page with its meaning and next step", () => {
  const page = fs.readFileSync(path.join(ROOT, "docs", "troubleshooting.md"), "utf8");
  const rows = new Map(
    [...page.matchAll(/^\| `(GPQ_[A-Z_]+)` +\| (.*?) +\| (.*?) +\|$/gm)].map((m) => [m[1], [m[2], m[3]]]),
  );
  for (const [code, doc] of Object.entries(ERROR_CODES)) {
    expect([code, rows.get(code)]).toEqual([code, [doc.meaning, doc.next].map((s) => s.replace(/\|/g, "\\|"))]);
  }
  expect(Object.keys(ERROR_CODES).length).toBeGreaterThanOrEqual(21);
});
