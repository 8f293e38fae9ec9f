// The two ways in stay thin: each is one folder of provider/ under 500
// lines, and they share no block of six lines or more (what both need is
// the core's, or engine/'s, written once). The plugin's share of that is
// mostly the calls it answers on the wire itself, where the SDK's server
// drops what the engine needs (the configuration calls, Invoke, Diff).
import * as fs from "node:fs";
import * as path from "node:path";

const PROVIDER = path.join(__dirname, "..", "..", "provider");
const WAYS_IN = ["dynamic", "plugin"];
const BLOCK = 6;

/** Each TypeScript file of a folder, as its lines. */
function filesOf(folder: string): Map<string, string[]> {
  const dir = path.join(PROVIDER, folder);
  return new Map(
    fs
      .readdirSync(dir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => [`${folder}/${f}`, fs.readFileSync(path.join(dir, f), "utf8").split("\n")]),
  );
}

/** Every run of BLOCK consecutive code lines (trimmed; blank lines and comments left out), with where it starts. */
function blocksOf(lines: string[]): Map<string, number> {
  const code = lines
    .map((text, i) => ({ text: text.trim(), line: i + 1 }))
    .filter(({ text }) => text !== "" && !/^(\/\/|\/\*\*?|\*)/.test(text));
  const blocks = new Map<string, number>();
  for (let i = 0; i + BLOCK <= code.length; i++) {
    const run = code.slice(i, i + BLOCK);
    // A run of closing brackets and the like is no shared logic.
    if (run.filter((l) => /[A-Za-z]/.test(l.text)).length < BLOCK - 1) continue;
    blocks.set(run.map((l) => l.text).join("\n"), run[0]!.line);
  }
  return blocks;
}

test.each(WAYS_IN)("provider/%s/ is one folder under 500 lines", (folder) => {
  const files = filesOf(folder);
  const lines = [...files.values()].reduce((n, l) => n + l.length - (l.at(-1) === "" ? 1 : 0), 0);
  expect(files.size).toBeGreaterThan(0);
  expect(lines).toBeLessThan(500);
});

test("the two ways in repeat no block of six lines", () => {
  const [a, b] = WAYS_IN.map((folder) => {
    const found = new Map<string, string>();
    for (const [file, lines] of filesOf(folder)) {
      for (const [block, line] of blocksOf(lines)) found.set(block, `${file}:${line}`);
    }
    return found;
  });
  const repeated = [...a!.keys()].filter((block) => b!.has(block)).map((k) => `${a!.get(k)} = ${b!.get(k)}`);
  expect(repeated).toEqual([]);
});

test("the block finder sees a repeated block, comments and blank lines aside", () => {
  const body = ["const a = 1;", "const b = 2;", "const c = a + b;", "if (c) run(c);", "log(c);", "return c;"];
  const one = blocksOf(["// one", ...body]);
  const two = blocksOf(["", body[0]!, "// a note", ...body.slice(1), "done();"]);
  expect([...one.keys()].filter((k) => two.has(k))).toEqual([body.join("\n")]);
  expect(blocksOf(body.slice(1)).size).toBe(0);
});
