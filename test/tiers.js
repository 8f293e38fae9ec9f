// The test tiers, fastest first, and which tier each test file belongs to,
// by what it needs (jest.config.js makes one jest project of each; npm run
// test:<tier> runs one, npm test all of them):
//   unit         nothing but this process: an in-process simulator at most, a
//                child Node.js on the build; no engine, no toolchain, no
//                download, no server of its own process
//   integration  the lifecycle and the client against the simulator
//                (*.int.test.ts, *.integration.test.ts), servers and command
//                lines in processes of their own, the pinned old Node.js
//   e2e          through the Pulumi engine (the Automation API, `pulumi`)
//   consumers    other languages' toolchains (Go, Python, the YAML language
//                host built with Go), PostgreSQL, the packed package in a
//                project of its own
// The first rule a file's path matches names its tier; a file that matches
// none is an error (jest.config.js refuses to start), and test/tiers.test.ts
// fails when a file's imports need more than its tier gives.
const fs = require("node:fs");
const path = require("node:path");

const TIERS = ["unit", "integration", "e2e", "consumers"];

/** [tier, path relative to the repository root (with "/")], first match wins. */
const RULES = [
  // the versions check (the built script in a child Node.js) and the cut (plain file edits), then the release and its installs by name
  ["unit", /^test\/release\/(versions|cut)\.test\.ts$/],
  ["consumers", /^test\/release\//],
  ["consumers", /^test\/consumers\//],
  ["consumers", /^test\/examples\/gitops-postgres\.test\.ts$/],
  ["consumers", /^test\/package\/(plugin-)?tarball\.test\.ts$/],
  ["consumers", /^test\/schema\/sdk\.test\.ts$/],
  // the engine, and the YAML language host for `pulumi import`
  ["consumers", /^test\/e2e\/bulk-import\.test\.ts$/],
  ["e2e", /^test\/(e2e|examples|upgrade)\//],
  // `npm run demo` (its `pulumi up`), and the README's snippet that builds the engine and runs it
  ["e2e", /^test\/package\/(demo|readme)\.test\.ts$/],
  ["integration", /\.(int|integration)\.test\.ts$/],
  // the simulator's command line as a server in a process of its own
  ["integration", /^test\/simulator\/persistence\.test\.ts$/],
  // the built command line in child processes, and on the pinned old Node.js
  ["integration", /^test\/discover\/cli\.test\.ts$/],
  [
    "unit",
    /^test\/(client|data|discover|lifecycle|package|plugin|recover|dynamic|core|engine|settings|layout|schema|simulator|support)\/[^/]+\.test\.ts$/,
  ],
  ["unit", /^test\/tiers\.test\.ts$/],
];

/** The tier of a test file (its path relative to the repository root), or undefined when no rule names one. */
function tierOf(file) {
  const rel = file.split(path.sep).join("/");
  const rule = RULES.find(([, pattern]) => pattern.test(rel));
  return rule?.[0];
}

/** Every test file under test/, relative to `root`, sorted. */
function testFiles(root) {
  return fs
    .readdirSync(path.join(root, "test"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".test.ts"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

module.exports = { TIERS, tierOf, testFiles };
