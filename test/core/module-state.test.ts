// The lint rule that keeps process state out of module scope in provider/:
// it fires on a module-level let/var and on a module-level Map/Set/WeakMap,
// and lets through a ReadonlySet constant and state inside a function.
import { spawnSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");

/** The lines the rule refuses in `code`, linted as a file of provider/ (eslint in its own process). */
async function restricted(code: string): Promise<number[]> {
  const bin = path.join(ROOT, "node_modules", "eslint", "bin", "eslint.js");
  const run = spawnSync(process.execPath, [bin, "--stdin", "--stdin-filename", "provider/probe.ts", "-f", "json"], {
    cwd: ROOT,
    input: code,
    encoding: "utf8",
  });
  const [result] = JSON.parse(run.stdout) as { messages: { ruleId: string | null; line: number }[] }[];
  return result!.messages.filter((m) => m.ruleId === "no-restricted-syntax").map((m) => m.line);
}

test("module-level let, var and collections are refused in provider/", async () => {
  const code = [
    "let a = 1;",
    "export let b = 2;",
    "var c = 3;",
    "const m = new Map<string, number>();",
    "export const s = new Set<string>();",
    "const w = new WeakMap<object, number>();",
    "void [a, c, m, w];",
  ].join("\n");
  expect(await restricted(code)).toEqual([1, 2, 3, 4, 5, 6]);
});

test("a ReadonlySet constant and state inside a function or class pass", async () => {
  const code = [
    'const OK: ReadonlySet<string> = new Set(["x"]);',
    "export function f(): Map<string, number> {",
    "  let inner = new Map<string, number>();",
    "  inner = new Map(inner);",
    "  return inner;",
    "}",
    "export class Holder {",
    "  private readonly held = new Map<string, number>();",
    "  size(): number {",
    "    return this.held.size + OK.size;",
    "  }",
    "}",
  ].join("\n");
  expect(await restricted(code)).toEqual([]);
});
