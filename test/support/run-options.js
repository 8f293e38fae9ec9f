// What every jest run of this repository's tests ends with (jest.config.js,
// and the process guard's fixtures): jest exits once the last test has
// ended, whatever a timed-out test left open in the process (a timer, a
// server), instead of waiting for it; and under CI a run stops after its
// first failed file (test/support/environment.js skips that file's later
// tests), so a red run answers within a minute of its failure.
"use strict";
const ci = process.env.CI === "true" || process.env.CI === "1";

module.exports = { forceExit: true, ...(ci ? { bail: 1 } : {}) };
