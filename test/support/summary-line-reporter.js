// Adds one plain closing line to jest's summary, `tests: N passed, N failed`,
// so a script reading the end of the output can tell the result at a glance.
class SummaryLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line =
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed` +
      (skipped ? `, ${skipped} skipped` : "");
    process.stdout.write(`${line}\n`);
  }
}
module.exports = SummaryLineReporter;
