// The end of a test run's output: the failed tests by file and name (and the
// files that failed outside any test: a leftover process, a syntax error),
// then one plain closing line, `tests: N passed, N failed`, so that whoever
// reads the end of a long CI log sees what failed and the count at a glance
// (on stderr, after jest's own summary there).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

/** Straight to stderr: at --forceExit, jest has made process.stderr.write a no-op by then. */
const write = (text) => fs.writeSync(2, text);

class SummaryLineReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    // At the process's exit: after jest's own summary and its last notes, whichever way it exits.
    process.once("exit", () => this.closing(results));
  }

  closing(results) {
    const failed = [];
    let outsideTests = 0;
    for (const file of results.testResults) {
      const rel = path.relative(this.root, file.testFilePath);
      for (const t of file.testResults) {
        if (t.status === "failed") failed.push(`  ${rel} › ${[...t.ancestorTitles, t.title].join(" › ")}`);
      }
      if (file.testExecError) outsideTests++;
      if (file.testExecError) failed.push(`  ${rel}: ${String(file.testExecError.message).split("\n")[0]}`);
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const line =
      // A file that failed outside its tests counts as one failure: the run is red for it.
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests + outsideTests} failed` +
      (skipped ? `, ${skipped} skipped` : "");
    const text = (failed.length > 0 ? `\nfailed:\n${failed.join("\n")}\n` : "") + `${line}\n`;
    write(text);
    // Kept for whoever runs jest and prints more after it (.ci/run, after npm's own lines).
    if (process.env.GO_PVE_QEMU_TEST_SUMMARY) fs.appendFileSync(process.env.GO_PVE_QEMU_TEST_SUMMARY, text);
  }
}
module.exports = SummaryLineReporter;
