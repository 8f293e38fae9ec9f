// The process guard of the test tiers (test/support/environment.js), on its
// own fixtures run by jest in a child process: a test that times out has what
// it started killed (a child, a process group, an orphan that kept the mark)
// and is named at the end; a file that passes but leaves a process behind
// fails by name; under CI the file's later tests are skipped.
import { execFileSync, spawnSync } from "node:child_process";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const JEST = path.join(ROOT, "node_modules", "jest", "bin", "jest.js");

/** A number no other process here sleeps for: the fixtures' `sleep` arguments start with it. */
const tag = String(90_000 + Math.floor(Math.random() * 9_000));

function runFixture(name: string, ci: boolean): { code: number | null; output: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, GUARD_TAG: tag, GO_PVE_QEMU_TEST_GRACE_MS: "1000" };
  // The fixtures' failures are theirs alone: not this run's CI state, nor the summary .ci/run repeats.
  delete env.CI;
  delete env.GO_PVE_QEMU_TEST_SUMMARY;
  if (ci) env.CI = "true";
  const run = spawnSync(
    process.execPath,
    [JEST, "--config", path.join(ROOT, "test/fixtures/guard/jest.config.js"), `test/fixtures/guard/${name}`],
    { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
  );
  return { code: run.status, output: run.stdout + run.stderr };
}

/** The fixtures' processes still running, by their `sleep` argument. */
function leftovers(): string[] {
  try {
    return execFileSync("pgrep", ["-af", `sleep ${tag}`], { encoding: "utf8" })
      .trim()
      .split("\n");
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

afterAll(() => {
  spawnSync("pkill", ["-f", `sleep ${tag}`]);
});

test("a test that times out: everything it started is killed, and the end of the output names it", () => {
  const { code, output } = runFixture("times-out.fixture.ts", false);
  expect(code).not.toBe(0);
  expect(leftovers()).toEqual([]);
  const end = output.slice(output.lastIndexOf("failed:"));
  expect(end).toMatch(/^failed:\n {2}test\/fixtures\/guard\/times-out\.fixture\.ts › times out\n/);
  expect(end).toMatch(/\ntests: 1 passed, 1 failed\n$/);
}, 60_000);

test("under CI, the tests after a failed one are skipped", () => {
  const { code, output } = runFixture("times-out.fixture.ts", true);
  expect(code).not.toBe(0);
  expect(leftovers()).toEqual([]);
  expect(output).toMatch(/tests: 0 passed, 1 failed, 1 skipped\n$/);
}, 60_000);

test("a file that passes but leaves a process running fails, naming the file and the process", () => {
  const { code, output } = runFixture("leaves-one.fixture.ts", false);
  expect(code).not.toBe(0);
  expect(leftovers()).toEqual([]);
  expect(output).toMatch(
    new RegExp(
      `test/fixtures/guard/leaves-one\\.fixture\\.ts left 1 process\\(es\\) running[^\\n]*\\n\\s+\\d+ sleep ${tag}4`,
    ),
  );
  expect(output).toMatch(/tests: \d+ passed, 1 failed\n$/);
}, 60_000);
