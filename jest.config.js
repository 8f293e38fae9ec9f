// Jest runs the TypeScript sources directly through swc (no type checking
// here: `npm run typecheck` does that once for the whole tree).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2023" } }],
    // eventsource-parser ships ES modules only; jest runs CommonJS.
    "node_modules/eventsource-parser/.+\\.js$": [
      "@swc/jest",
      { jsc: { target: "es2023" }, module: { type: "commonjs" } },
    ],
  },
  transformIgnorePatterns: ["node_modules/(?!eventsource-parser)"],
  testTimeout: 30_000,
  reporters: ["default", "<rootDir>/test/support/summary-line-reporter.js"],
};
