// The test environment of every tier: jest's node environment, plus what a
// test file started is ended with it. A test that fails or times out leaves
// its `pulumi up` (and the language host and providers under it) running, and
// jest only stops waiting for its promise; so:
// - when a test fails or times out, every process it started is killed at
//   once, before its afterEach hooks (which would otherwise wait on them);
//   what the file's beforeAll started is left to the file's own tests;
// - under CI, the file's remaining tests are then skipped: the run is red
//   already, and jest stops after this file (bail, test/support/run-options.js),
//   so a failure is answered within a minute of its timeout, not at the end;
// - at the end of the file, a process still running after a grace time is
//   killed, and fails the file by name when the file had passed.
// A file's processes: the descendants of this worker, and any process whose
// environment carries the file's mark (those that lost their parent).
"use strict";
const path = require("node:path");
const { TestEnvironment } = require("jest-environment-node");
const { started, commandOf, killAll, stillRunning } = require("./processes");

const MARK = "GO_PVE_QEMU_TEST_FILE";
/**
 * How long a file's processes may take to end by themselves after its last
 * hook (an engine's plugins shutting down); GO_PVE_QEMU_TEST_GRACE_MS for the
 * guard's own test.
 */
const GRACE_MS = Number(process.env.GO_PVE_QEMU_TEST_GRACE_MS ?? 10_000);

class GuardedEnvironment extends TestEnvironment {
  constructor(config, context) {
    const file = path.relative(config.globalConfig.rootDir, context.testPath);
    const value = `${process.env.GO_PVE_QEMU_TEST_RUN ?? `local-${process.pid}`}:${file}`;
    // Set on this worker's own environment before the test's sandbox copies it, so every child inherits it.
    process.env[MARK] = value;
    super(config, context);
    this.file = file;
    this.mark = `${MARK}=${value}`;
    this.failed = false;
    this.failFast = process.env.CI === "true" || process.env.CI === "1";
    /** The processes running when the current test started (a failed test's own are the others). */
    this.before = new Set();
  }

  processes() {
    return started({ root: process.pid, mark: this.mark });
  }

  async handleTestEvent(event) {
    if (event.name === "test_start") {
      if (this.failed && this.failFast) event.test.mode = "skip";
      this.before = new Set(this.processes());
    }
    if (event.name === "test_fn_failure" || event.name === "hook_failure") {
      this.failed = true;
      const before = event.name === "test_fn_failure" ? this.before : undefined;
      killAll(this.processes().filter((pid) => before === undefined || !before.has(pid)));
    }
  }

  async teardown() {
    const left = await stillRunning(() => this.processes(), GRACE_MS);
    const named = left.map((pid) => `  ${pid} ${commandOf(pid)}`);
    killAll(left);
    delete process.env[MARK];
    await super.teardown();
    if (left.length > 0 && !this.failed) {
      throw new Error(
        `${this.file} left ${left.length} process(es) running ${GRACE_MS / 1000} s after its last test ` +
          `(killed now): end what a test starts in its own afterEach/afterAll\n${named.join("\n")}`,
      );
    }
  }
}

module.exports = GuardedEnvironment;
