// The upgrade check, for the state of each earlier release kept in
// test/fixtures/upgrade/<release>/ (a real `pulumi up` of its program/ by that
// release, exported): the stored __provider text is the old release's and has
// to load the current implementation, preview must show no change, up must be
// a no-op, refresh must work, and destroy must remove every VM. Any change of
// what state holds has to pass here, for every release kept.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { failureOf, newFleet, type Fleet } from "../e2e/harness";

const PASSPHRASE = "upgrade-fixture";
const PASSWORD = "Upgrade-Fixture-Pw-7";

export interface Release {
  /** its folder under test/fixtures/upgrade */
  dir: string;
  /** the stack's name in the export (its config file is Pulumi.<stack>.yaml) */
  stack: string;
  /** the VMs' names on the release's simulator, sorted */
  serverNames: string[];
  /** the release made the stack's identity (StackIdentity) itself: nothing is created on upgrade */
  hasIdentity?: boolean;
}

type VmOutputs = Record<string, { vmid: number; vmName: string; node: string; running: boolean }>;

/** `more`: the release's own checks of the outputs of the no-op `up`. */
export function upgradeSuite(release: Release, more?: (vms: VmOutputs) => void): void {
  const fixture = path.join(__dirname, "..", "fixtures", "upgrade", release.dir);
  const exported = JSON.parse(fs.readFileSync(path.join(fixture, "stack.json"), "utf8"));
  /** The endpoint the release's simulator had; the resources' stored connection names it. */
  const oldEndpoint = /goPveQemu:endpoint: (\S+)/.exec(
    fs.readFileSync(path.join(fixture, `Pulumi.${release.stack}.yaml`), "utf8"),
  )![1]!;
  const vmCount = release.serverNames.length;
  let scratch: string;
  let sim: SimulatorHandle;
  let fleet: Fleet;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-upgrade-"));
    const simState = path.join(scratch, "sim-state.json");
    fs.copyFileSync(path.join(fixture, "sim-state.json"), simState);
    sim = await startSimulator({ speed: 2000, stateFile: simState });
    fleet = await newFleet(
      {},
      {
        sim,
        program: path.join(fixture, "program"),
        stackName: release.stack,
        passphrase: PASSPHRASE,
        extraFiles: [path.join(fixture, `Pulumi.${release.stack}.yaml`)],
        // The upgraded package, installed where a user's project has it.
        installPackage: true,
      },
    );
    await fleet.stack.importStack(exported);
    // The simulator now listens on another port than the release's did. Each
    // VM's state keeps the connection it was made with (encrypted), so the
    // stored endpoint is moved to this simulator as a user would after moving
    // the server: through a decrypted export (the Automation API's export shows
    // secrets) and an import, nothing else changed.
    const plain = await fleet.stack.exportStack();
    const connections = (plain.deployment.resources as { outputs?: { connection?: { plaintext?: string } } }[])
      .map((r) => r.outputs?.connection?.plaintext)
      .filter((c) => c !== undefined);
    expect(connections).toEqual(release.serverNames.map(() => JSON.stringify({ endpoint: oldEndpoint })));
    await fleet.stack.importStack(JSON.parse(JSON.stringify(plain).split(oldEndpoint).join(sim.url)));
  });

  afterAll(async () => {
    await fleet?.dispose();
    await sim?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  test("the fixture is the old release's: its __provider names an implementation that no longer exists", () => {
    const providers = exported.deployment.resources
      .map((r: { inputs?: { __provider?: string } }) => r.inputs?.__provider)
      .filter((p: unknown): p is string => typeof p === "string");
    // every VM's, and the StackIdentity's where the release made one
    expect(providers).toHaveLength(vmCount + (release.hasIdentity ? 1 : 0));
    const implPath = /IMPL_PATH: "([^"]+)"/.exec(providers[0]!)![1]!;
    expect(fs.existsSync(implPath)).toBe(false);
    expect(
      sim
        .vms()
        .map((v) => v.name)
        .sort(),
    ).toEqual(release.serverNames);
  });

  test("preview changes no VM (the one create, before the identity release, is the stack's identity), up writes nothing to the server, refresh works, destroy removes every VM", async () => {
    // A stack of a release before the identity release has no StackIdentity yet: it is made once,
    // by the first up, and touches no server. Every VM the release made is unchanged.
    const made = release.hasIdentity ? {} : { create: 1 };
    const kept = release.hasIdentity ? vmCount + 2 : vmCount + 1;
    const preview = await fleet.preview();
    expect(preview.changeSummary).toEqual({ same: kept, ...made });
    const creates = fleet.last.events.flatMap((e) =>
      e.resourcePreEvent?.metadata.op === "create" ? [e.resourcePreEvent.metadata.urn] : [],
    );
    expect(creates).toEqual(
      release.hasIdentity
        ? []
        : [expect.stringMatching(/::pulumi-nodejs:dynamic\/goPveQemu:StackIdentity::go-pve-qemu-stack$/)],
    );

    const installs = sim.stats().installsStarted;
    const writes = serverWrites(sim);
    const up = await fleet.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ same: kept, ...made });
    expect(sim.stats().installsStarted).toBe(installs);
    expect(serverWrites(sim)).toBe(writes);
    // from then on, nothing at all
    expect((await fleet.preview()).changeSummary).toEqual({ same: vmCount + 2 });
    const vms = up.outputs.vms!.value as VmOutputs;
    expect(vms.web).toMatchObject({ vmid: 121, vmName: "web-121", running: true });
    expect(vms.spare).toMatchObject({ node: "pve2", running: false });
    expect(vms.worker!.vmName).toBe(`worker-${vms.worker!.vmid}`);
    more?.(vms);

    await fleet.refresh();
    expect(Object.keys(fleet.resources()).sort()).toEqual(Object.keys(vms).sort());
    expect(fleet.resources().web!.outputs.running).toBe(true);
    // The user's password survives the upgrade, still a secret.
    const outputs = await fleet.stack.outputs();
    expect(fleet.stateText()).not.toContain(PASSWORD);
    expect(outputs.vms!.secret).toBe(false);
    expect((await fleet.preview()).changeSummary).toEqual({ same: vmCount + 2 });

    // The user then switches storePassword on for web, whose password the release stored. A password
    // in stack config is in state anyway (Pulumi keeps a dynamic provider's whole config there), so
    // preview refuses that first; the user moves it to a file and drops the config key. Then: one
    // update that only rewrites state (no replace, no server write), and the password is gone.
    const program = path.join(fleet.workDir, "index.ts");
    const source = fs.readFileSync(program, "utf8");
    const fromConfig = 'password: config.requireSecret("webPassword"),';
    expect(source).toContain(fromConfig);
    fs.writeFileSync(program, source.replace(fromConfig, `${fromConfig}\n  storePassword: false,`));
    const refused = await failureOf(fleet.preview());
    expect(refused).toMatch(/password: comes from stack config upgrade:webPassword/);
    expect(refused).not.toContain(PASSWORD);
    const file = path.join(scratch, "web-password");
    fs.writeFileSync(file, PASSWORD, { mode: 0o600 });
    fs.writeFileSync(
      program,
      `import * as fs from "node:fs";\n${source.replace(
        fromConfig,
        `password: pulumi.secret(fs.readFileSync(${JSON.stringify(file)}, "utf8")),\n  storePassword: false,`,
      )}`,
    );
    await fleet.stack.removeConfig("webPassword");
    const switchPreview = await fleet.preview();
    expect(switchPreview.changeSummary).toEqual({ same: vmCount + 1, update: 1 });
    const writesBefore = serverWrites(sim);
    const switched = await fleet.up();
    expect(switched.summary.resourceChanges).toEqual({ same: vmCount + 1, update: 1 });
    expect(serverWrites(sim)).toBe(writesBefore);
    expect(fleet.resources().web!.id).toBe("121");
    const plainState = JSON.stringify(await fleet.stack.exportStack()); // decrypted
    const web = (await fleet.stack.exportStack()).deployment.resources.find((r: { urn: string }) =>
      r.urn.endsWith("::web"),
    ) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
    expect(web.inputs.password).toBeUndefined();
    expect(web.outputs.password).toMatchObject({ plaintext: "null" }); // so that vm.password is not the input
    expect(web.inputs.passwordHash).toMatch(/^scrypt\$/);
    expect(plainState).not.toContain(PASSWORD);
    expect((await fleet.preview()).changeSummary).toEqual({ same: vmCount + 2 });

    await fleet.destroy();
    expect(sim.vms()).toEqual([]);
    expect(fleet.resources()).toEqual({});
  });
}

/** Requests that change something on the server: every one but list, status and health. */
function serverWrites(sim: SimulatorHandle): number {
  const requests = sim.stats().requests as Record<string, number | undefined>;
  return Object.entries(requests)
    .filter(([op]) => !["list", "status", "health"].includes(op))
    .reduce((n, [, count]) => n + (count ?? 0), 0);
}
