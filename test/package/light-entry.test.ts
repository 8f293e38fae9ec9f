// A program that only declares Vms loads the package's entry and nothing
// heavy: the data sources and discover load the HTTP client (undici) and the
// schemas (zod) when they are first called, not when the package is imported.
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";

const exec = promisify(execFile);
const NODE = path.join(ROOT, "node_modules", ".bin", "node");

async function loadedBy(code: string): Promise<string[]> {
  const script = `${code}; console.log(JSON.stringify(Object.keys(require.cache)))`;
  const { stdout } = await exec(NODE, ["-e", script], { cwd: ROOT });
  const last = stdout.trim().split("\n").pop()!;
  return (JSON.parse(last) as string[]).map((f) => path.relative(ROOT, f));
}

const heavy = (files: string[]) =>
  files.filter(
    (f) =>
      /node_modules[\\/](undici|zod|eventsource-parser)[\\/]/.test(f) ||
      f.includes(`dist${path.sep}provider${path.sep}client`),
  );

test("importing the package loads neither undici nor zod nor the client", async () => {
  const files = await loadedBy(
    'const p = require("./dist/provider"); void [p.Vm, p.getNodes, p.discover, p.pickEmptiest]',
  );
  expect(files).toContain(path.join("dist", "provider", "index.js"));
  expect(heavy(files)).toEqual([]);
});

test("the CLI's usage loads none of them either; discover loads them when it runs", async () => {
  const usage = await loadedBy('process.argv = ["node", "cli"]; require("./dist/provider/cli")');
  expect(heavy(usage)).toEqual([]);
  const ran = await loadedBy(
    'require("./dist/provider").discover({ connection: { endpoint: "" } }).catch(() => { console.log(JSON.stringify(Object.keys(require.cache))); process.exit(0) })',
  );
  expect(heavy(ran).length).toBeGreaterThan(0);
});
