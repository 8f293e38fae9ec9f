// storePassword: false through the real engine: the VM gets the password,
// and neither the exported state (secrets shown) nor any file of the backend
// holds it, encrypted or not; a changed password is still a replace; a
// password taken from stack config is refused at preview, since Pulumi keeps
// a dynamic provider's whole stack config in state (the plugin's provider
// keeps only its own settings, so there such a password is taken as any other).
// Each way in runs the same cases.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { BOTH_WAYS_IN, failureOf, newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const PASSWORD = "never-in-state-7q";

type Bag = Record<string, unknown>;

describe.each(BOTH_WAYS_IN)("on the %s provider", (via) => {
  let fleet: Fleet;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-store-password-"));
    file = path.join(dir, "web-password");
    fs.writeFileSync(file, PASSWORD, { mode: 0o600 });
    fleet = await newFleet({}, { via });
    await fleet.stack.setConfig("passwordFile-web", { value: file });
    await fleet.setVms({ web: { os: "ubuntu", version: "24.04", name: "web", storePassword: false } });
  });
  afterAll(async () => {
    await fleet?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Every resource's inputs and outputs in every checkpoint file of the backend (history and backups too). */
  function everyResourceBag(): Bag[] {
    const bags: Bag[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object") {
        const o = v as Record<string, unknown>;
        if (typeof o.urn === "string" && typeof o.type === "string") {
          for (const key of ["inputs", "outputs"]) if (o[key]) bags.push(o[key] as Record<string, unknown>);
        }
        Object.values(o).forEach(walk);
      }
    };
    const stateDir = path.join(fleet.env.PULUMI_BACKEND_URL!.replace(/^file:\/\//, ""), ".pulumi");
    for (const f of fs.readdirSync(stateDir, { recursive: true, withFileTypes: true })) {
      if (!f.isFile() || !/\.json$/.test(f.name)) continue;
      walk(JSON.parse(fs.readFileSync(path.join(f.parentPath, f.name), "utf8")));
    }
    return bags;
  }

  test("up installs the VM with the password; no checkpoint, export or backend file holds it", async () => {
    const up = await fleet.up();
    expect(up.summary.result).toBe("succeeded");
    expect(fleet.sim.installs().map((i) => i.cipassword)).toEqual([PASSWORD]);
    // the output is not known to anyone: state has no password to give
    expect((up.outputs.vms!.value as Record<string, { password?: string }>).web!.password ?? undefined).toBeUndefined();

    const shown = execFileSync("pulumi", ["stack", "export", "--show-secrets"], {
      cwd: fleet.workDir,
      env: { ...process.env, ...fleet.env },
      encoding: "utf8",
    });
    expect(shown).not.toContain(PASSWORD);
    expect(fleet.stateText()).not.toContain(PASSWORD);
    // Decrypted: the VM's inputs have no password, its outputs a null one (so `vm.password` is not the input).
    const exported = JSON.parse(shown) as { deployment: { resources: { urn: string; inputs: Bag; outputs: Bag }[] } };
    const plain = exported.deployment.resources.find((r) => r.urn.endsWith("::web"))!;
    expect(plain.inputs.password).toBeUndefined();
    expect(plain.outputs.password).toMatchObject({ plaintext: "null" });
    // Every checkpoint the backend keeps (history and backups too): no password but that null one.
    const vmBags = everyResourceBag().filter((b) => "passwordHash" in b);
    expect(vmBags.length).toBeGreaterThan(1);
    for (const bag of vmBags) {
      expect(
        bag.password === undefined || bag.password === null || (bag.password as Bag).ciphertext !== undefined,
      ).toBe(true);
      expect(typeof bag.password).not.toBe("string");
    }
    const web = fleet.resources().web!;
    expect(web.inputs.passwordHash).toMatch(/^scrypt\$/);
    expect(web.outputs.passwordHash).toMatchObject({ ciphertext: expect.any(String) }); // a secret output
  });

  test("an unchanged password is no change; another one is a replace, found through the hash", async () => {
    expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 1 });
    fs.writeFileSync(file, "another-pass-8x");
    const preview = await fleet.preview();
    expect(preview.changeSummary).toMatchObject({ replace: 1 });
    fs.writeFileSync(file, PASSWORD);
    expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 1 });
  });

  test("a password from stack config is refused at preview on the dynamic provider, naming the key; the plugin takes it", async () => {
    await fleet.stack.setConfig("password-web", { value: PASSWORD, secret: true });
    try {
      if (via === "plugin") {
        expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 1 });
        return;
      }
      const refused = await failureOf(fleet.preview());
      expect(refused).toMatch(
        /password: comes from stack config fleet:password-web, and Pulumi keeps the whole stack config/,
      );
      expect(refused).not.toContain(PASSWORD);
    } finally {
      await fleet.stack.removeConfig("password-web");
    }
  });

  test("destroy removes the VM", async () => {
    await fleet.destroy();
    expect(fleet.sim.vms()).toEqual([]);
  });
});
