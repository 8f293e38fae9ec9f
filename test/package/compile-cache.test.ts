// The provider process turns on Node's compile cache before it loads the
// implementation's heavy modules, so a later `pulumi` run (a new provider
// process) reuses their compiled code. Run in a child Node.js (the project's
// Node 22, as the provider host runs) on the built implementation, with its
// own temporary folder so the cache's location is known.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ROOT = path.join(__dirname, "..", "..");
const IMPL = path.join(ROOT, "dist", "provider", "dynamic", "provider-impl.js");
const NODE = path.join(ROOT, "node_modules", ".bin", "node");

/** Loads the implementation in a fresh process; answers the cache folder it used (or "none") and the files in it. */
function loadIn(tmp: string, env: Record<string, string> = {}): { dir: string; files: string[] } {
  const script = `require(${JSON.stringify(IMPL)}); process.stdout.write(require("node:module").getCompileCacheDir() ?? "none");`;
  const baseEnv = { ...process.env };
  delete baseEnv.NODE_COMPILE_CACHE;
  delete baseEnv.NODE_DISABLE_COMPILE_CACHE;
  const dir = execFileSync(NODE, ["-e", script], { env: { ...baseEnv, TMPDIR: tmp, ...env }, encoding: "utf8" });
  const files = fs.existsSync(path.join(tmp, "node-compile-cache"))
    ? fs.readdirSync(path.join(tmp, "node-compile-cache"), { recursive: true, encoding: "utf8" })
    : [];
  return { dir, files };
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-cc-"));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("loading the implementation turns the cache on, under the temporary folder, and fills it", () => {
  const { dir, files } = loadIn(tmp);
  expect(dir.startsWith(path.join(tmp, "node-compile-cache"))).toBe(true);
  expect(files.length).toBeGreaterThan(0);
});

test("NODE_DISABLE_COMPILE_CACHE=1 is honoured: no cache, nothing written", () => {
  const { dir, files } = loadIn(tmp, { NODE_DISABLE_COMPILE_CACHE: "1" });
  expect(dir).toBe("none");
  expect(files).toEqual([]);
});
