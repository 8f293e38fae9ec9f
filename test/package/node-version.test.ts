// The Node.js check the package makes when it loads, before undici.
import * as fs from "node:fs";
import * as path from "node:path";
import { MIN_NODE, nodeVersionProblem } from "../../provider/node-version";

test("Node.js 22.19 and later load; older ones get the version found and the fix", () => {
  expect(MIN_NODE).toEqual({ major: 22, minor: 19 });
  expect(nodeVersionProblem("22.19.0")).toBeUndefined();
  expect(nodeVersionProblem("22.23.3")).toBeUndefined();
  expect(nodeVersionProblem("24.1.0")).toBeUndefined();
  expect(nodeVersionProblem("22.18.1")).toContain("(found 22.18.1)");
  const problem = nodeVersionProblem("20.20.2");
  expect(problem).toMatch(/^go-pve-qemu-pulumi: Node.js >= 22\.19 is required \(found 20\.20\.2\)\. /);
  expect(problem).toContain("npm install --save-dev node@22");
  expect(nodeVersionProblem("18.19.0")).toContain("(found 18.19.0)");
  expect(nodeVersionProblem("garbage")).toContain("(found garbage)");
});

test("the package's entry and the provider implementation load the check before anything else", () => {
  // Order matters: undici must not load before the check on an old Node.js.
  const firstImport = (file: string) =>
    fs
      .readFileSync(path.join(__dirname, "..", "..", "provider", file), "utf8")
      .split("\n")
      .find((l) => /^(import|export) /.test(l));
  expect(firstImport("index.ts")).toBe('import "./node-version";');
  expect(firstImport("resource/provider-impl.ts")).toBe('import "../node-version";');
});
