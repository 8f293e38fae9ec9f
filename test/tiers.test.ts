// Every test file is in exactly one tier (test/tiers.js), and in one its needs
// allow: what a file and the test helpers it imports (test/**, followed
// through relative imports) use says what it needs. A unit test that reaches
// the engine harness, or an end-to-end test that builds a Go toolchain, fails
// here, naming the file and what it uses.
import * as fs from "node:fs";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..");
const TEST = path.join(ROOT, "test");
// CommonJS on purpose: jest.config.js loads it before any transform exists.
const { TIERS, tierOf, testFiles } = require("./tiers") as {
  TIERS: string[];
  tierOf(file: string): string | undefined;
  testFiles(root: string): string[];
};

type Need = "engine" | "toolchain" | "own process";

/** What a line of a test or a test helper uses, by the need it shows. */
const MARKERS: [Need, RegExp][] = [
  ["engine", /from "@pulumi\/pulumi\/automation"/],
  ["engine", /\b(ensureEngine|engineEnv)\(/],
  ["engine", /GO_PVE_QEMU_ENGINE_BIN|ensure-engine\.sh/],
  ["engine", /"run", "-s", "demo"/], // npm run demo: its `pulumi up`
  ["toolchain", /\bensureConsumer\(|ensure-consumers\.sh|gen-sdk\.sh/], // Go, Python, the YAML host
  ["toolchain", /from "(\.\.\/)+scripts\/postgres"/],
  ["toolchain", /\["pack"/], // npm pack: the package in a project of its own
  ["toolchain", /"run", "-s", "release"/], // npm run release: the SDKs generated with Go, built with Python
  ["own process", /\boldNode\(/], // the pinned old Node.js, installed on first use
  ["own process", /register-ts\.js/], // the simulator's command line as a server of its own
];

/** What each tier may need; the tiers after unit must need what makes them slower. */
const ALLOWED: Record<string, Need[]> = {
  unit: [],
  integration: ["own process"],
  e2e: ["own process", "engine"],
  consumers: ["own process", "engine", "toolchain"],
};
const REQUIRED: Record<string, Need | undefined> = { e2e: "engine", consumers: "toolchain" };

/** The local module a relative import names, when it is a test helper (under test/). */
function helperOf(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  if (!base.startsWith(TEST + path.sep)) return undefined;
  return [base, `${base}.ts`, `${base}.js`, path.join(base, "index.ts")].find(
    (f) => fs.existsSync(f) && fs.statSync(f).isFile(),
  );
}

/** Each need of a test file, with the file (itself or a helper) that shows it. */
function needsOf(file: string): Map<Need, string> {
  const needs = new Map<Need, string>();
  const seen = new Set<string>();
  const queue = [path.join(ROOT, file)];
  for (let f = queue.pop(); f !== undefined; f = queue.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    const text = fs.readFileSync(f, "utf8");
    // This file names every marker (above) and needs none of them.
    if (f !== __filename)
      for (const [need, marker] of MARKERS)
        if (!needs.has(need) && marker.test(text)) needs.set(need, path.relative(ROOT, f));
    for (const m of text.matchAll(/(?:from |require\()"(\.[^"]+)"/g)) {
      const helper = helperOf(f, m[1]!);
      if (helper !== undefined) queue.push(helper);
    }
  }
  return needs;
}

const files = testFiles(ROOT);

test("the tiers are unit, integration, e2e and consumers, and every test file is in one of them", () => {
  expect(TIERS).toEqual(["unit", "integration", "e2e", "consumers"]);
  expect(files.length).toBeGreaterThan(100);
  expect(files.filter((f) => tierOf(f) === undefined)).toEqual([]);
});

test("jest has one project per tier, and each test file in exactly one of them", () => {
  const config = require("../jest.config") as { projects: { displayName: string; testMatch: string[] }[] };
  expect(config.projects.map((p) => p.displayName)).toEqual(TIERS);
  const listed = config.projects.flatMap((p) => p.testMatch.map((m) => m.replace("<rootDir>/", "")));
  expect([...listed].sort()).toEqual(files);
  for (const p of config.projects)
    for (const m of p.testMatch) expect(tierOf(m.replace("<rootDir>/", ""))).toBe(p.displayName);
});

test("no test file needs more than its tier gives, and each slow tier's files need what makes it slow", () => {
  const wrong: string[] = [];
  for (const file of files) {
    const tier = tierOf(file)!;
    const needs = needsOf(file);
    for (const [need, where] of needs)
      if (!ALLOWED[tier]!.includes(need)) wrong.push(`${file} (${tier}) needs ${need}, shown by ${where}`);
    const required = REQUIRED[tier];
    if (required !== undefined && !needs.has(required)) wrong.push(`${file} (${tier}) does not need ${required}`);
  }
  expect(wrong).toEqual([]);
});

test("the check sees a need through a helper: the e2e harness needs the engine", () => {
  expect(needsOf("test/upgrade/v0.1.0.test.ts").get("engine")).toBe("test/e2e/harness.ts");
  expect(needsOf("test/consumers/go.test.ts").has("toolchain")).toBe(true);
  expect([...needsOf("test/lifecycle/create.int.test.ts").keys()]).toEqual([]);
});
