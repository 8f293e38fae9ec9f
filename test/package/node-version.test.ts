// The Node.js check the package makes when it loads, before undici.
import * as fs from "node:fs";
import * as path from "node:path";

/** What loading the check says on Node.js `version`: its error, or undefined when it loads. */
function loadOn(version: string): string | undefined {
  // Read-only but configurable: jest.replaceProperty cannot put it back.
  const real = Object.getOwnPropertyDescriptor(process.versions, "node")!;
  Object.defineProperty(process.versions, "node", { ...real, value: version });
  try {
    jest.isolateModules(() => require("../../provider/node-version"));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    Object.defineProperty(process.versions, "node", real);
  }
}

test("Node.js 22.19 and later load; older ones get the version found and the fix", () => {
  expect(loadOn("22.19.0")).toBeUndefined();
  expect(loadOn("22.23.3")).toBeUndefined();
  expect(loadOn("24.1.0")).toBeUndefined();
  expect(loadOn("22.18.1")).toContain("(found 22.18.1)");
  const problem = loadOn("20.20.2");
  expect(problem).toMatch(/^go-pve-qemu-pulumi: Node.js >= 22\.19 is required \(found 20\.20\.2\)\. /);
  expect(problem).toContain("npm install --save-dev node@22");
  expect(loadOn("18.19.0")).toContain("(found 18.19.0)");
  expect(loadOn("garbage")).toContain("(found garbage)");
});

test("the package's entry and the provider implementation load the check before anything else", () => {
  // Order matters: undici must not load before the check on an old Node.js.
  const firstImport = (file: string) =>
    fs
      .readFileSync(path.join(__dirname, "..", "..", "provider", file), "utf8")
      .split("\n")
      .find((l) => /^(import|export) /.test(l));
  expect(firstImport("index.ts")).toBe('import "./node-version";');
  expect(firstImport("dynamic/provider-impl.ts")).toBe('import "../node-version";');
});
