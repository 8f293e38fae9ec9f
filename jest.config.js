// Jest runs the TypeScript sources directly through swc (no type checking
// here: `npm run typecheck` does that once for the whole tree). One project
// per test tier (test/tiers.js says which file is in which): `jest
// --selectProjects unit` runs one tier, plain `jest` every tier.
const { TIERS, tierOf, testFiles } = require("./test/tiers");
const runOptions = require("./test/support/run-options");

const files = testFiles(__dirname);
const untiered = files.filter((f) => tierOf(f) === undefined);
if (untiered.length > 0)
  throw new Error(`test files in no test tier (add a rule to test/tiers.js): ${untiered.join(", ")}`);

/** What every tier runs with. */
const shared = {
  // jest's node environment, which also ends whatever a test file started (test/support/environment.js).
  testEnvironment: "<rootDir>/test/support/environment.js",
  roots: ["<rootDir>/test"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2023" } }],
    // eventsource-parser ships ES modules only; jest runs CommonJS.
    "node_modules/eventsource-parser/.+\\.js$": [
      "@swc/jest",
      { jsc: { target: "es2023" }, module: { type: "commonjs" } },
    ],
  },
  transformIgnorePatterns: ["node_modules/(?!eventsource-parser)"],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: TIERS.map((tier) => ({
    ...shared,
    displayName: tier,
    // Each file by its own path: a file is in exactly the tier tierOf names.
    testMatch: files.filter((f) => tierOf(f) === tier).map((f) => `<rootDir>/${f}`),
  })),
  testTimeout: 30_000,
  ...runOptions,
  reporters: ["default", "<rootDir>/test/support/summary-line-reporter.js"],
};
