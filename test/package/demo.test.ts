// `npm run demo` as the README's first screen shows it: the set-up, the
// simulator, and `pulumi up` of the quickstart (Pulumi.yaml + index.ts), then
// `npm run demo -- destroy`. The quickstart runs from a copy (its stack config
// and state stay apart from a developer's own demo) on a free port, with
// simulated time 2000x faster.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "../../scripts/engine-env";
import { freePort } from "../../scripts/ports";

jest.setTimeout(240_000);

const exec = promisify(execFile);

describe("npm run demo", () => {
  let dir: string;
  beforeAll(() => {
    // Outside npm test (which does the set-up once), the demo's set-up must not
    // reinstall node_modules under the running tests.
    const stamp = (f: string) => fs.statSync(path.join(ROOT, f)).mtimeMs;
    if (
      process.env.GO_PVE_QEMU_SETUP_DONE !== ROOT &&
      stamp("package-lock.json") > stamp("node_modules/.package-lock.json")
    ) {
      throw new Error("node_modules is older than package-lock.json: run `npm test` (it installs first) or `npm ci`");
    }
    fs.mkdirSync(path.join(ROOT, ".e2e-work"), { recursive: true });
    // Inside the repository, so that `go-pve-qemu-pulumi` resolves to this package.
    dir = fs.mkdtempSync(path.join(ROOT, ".e2e-work", "demo-"));
    for (const file of ["Pulumi.yaml", "index.ts"]) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("installs the quickstart's four VMs on the simulator, prints their IPs, and destroy removes them", async () => {
    const port = await freePort();
    const demo = (...args: string[]) =>
      exec("npm", ["run", "-s", "demo", "--", ...args, "--dir", dir, "--port", String(port), "--speed", "2000"], {
        cwd: ROOT,
        env: { ...process.env, GO_PVE_QEMU_ENDPOINT: "" },
        maxBuffer: 64 * 1024 * 1024,
      });

    const up = await demo();
    const out = up.stdout + up.stderr;
    expect(out).toContain(`demo: go-pve-qemu simulator at http://127.0.0.1:${port}`);
    expect(out).toMatch(/\+ 6 created/); // the stack, its identity and four VMs
    for (const name of ["web", "db", "cache", "worker"])
      expect(out).toMatch(new RegExp(`${name}\\s*:\\s*"192\\.168\\.0\\.\\d+"`));
    // the pinned VMID is the IP's last octet
    expect(out).toMatch(/web\s*:\s*"192\.168\.0\.120"/);
    expect(out).toContain("install [");
    const simState = () => JSON.parse(fs.readFileSync(path.join(dir, ".sim-state", "demo.json"), "utf8"));
    expect(JSON.stringify(simState())).toContain('"worker-');

    const again = await demo("preview");
    expect(again.stdout).toMatch(/6 unchanged/);

    const down = await demo("destroy");
    expect(down.stdout).toMatch(/- 6 deleted/);
    expect(JSON.stringify(simState())).not.toMatch(/"(web|db|cache|worker)-\d+"/);
  });
});
