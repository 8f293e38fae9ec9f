// The serialized provider as the engine's dynamic provider host sees it: the
// text Pulumi stores in state (serialized by Pulumi's own serializer from the
// built package), loaded the way the host loads it (require-from-string, then
// `handler()`, then `configure`), from the program's folder or from one where
// the package cannot be found. And the previous release's text, as stacks
// written by it hold it, loading this implementation.
//
// Needs the build (dist/): the text names the compiled implementation, as in
// every real deployment.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { serializeFunction } from "@pulumi/pulumi/runtime/closure/serializeClosure";

const ROOT = path.join(__dirname, "..", "..");
const DIST_PROVIDER = path.join(ROOT, "dist", "provider", "dynamic", "serialized-provider.js");
const DIST_IMPL = path.join(ROOT, "dist", "provider", "dynamic", "provider-impl.js");
const nodeRequire = createRequire(__filename);
/** The loader the host uses, from where the host has it. */
const requireFromString = createRequire(nodeRequire.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js"))(
  "require-from-string",
) as (code: string) => unknown;
const PREVIOUS = fs.readFileSync(path.join(ROOT, "test", "fixtures", "provider", "previous-release.txt"), "utf8");
const MISSING_PATH = "/nonexistent/gpq-release/dist/provider/dynamic/provider-impl.js";
const METHODS = ["check", "diff", "create", "read", "update", "delete"] as const;

type Provider = pulumi.dynamic.ResourceProvider & Record<string, unknown>;

function configRequest(values: Record<string, string>): pulumi.dynamic.ConfigureRequest {
  return { config: { get: (key: string) => values[key] } } as unknown as pulumi.dynamic.ConfigureRequest;
}
const GOOD = configRequest({ "goPveQemu:endpoint": "http://127.0.0.1:1" });

/** What the SDK stores as `__provider` for the built package's Vm. */
async function storedText(): Promise<string> {
  if (!fs.existsSync(DIST_PROVIDER)) throw new Error(`${DIST_PROVIDER} is not built: run npm run build first`);
  const { vmProvider } = nodeRequire(DIST_PROVIDER) as { vmProvider: pulumi.dynamic.ResourceProvider };
  return (await serializeFunction(() => vmProvider, { allowSecrets: true })).text;
}

/** Runs `work` in `cwd`, as the provider process runs in the program's folder. */
async function within<T>(cwd: string, work: () => Promise<T>): Promise<T> {
  const here = process.cwd();
  process.chdir(cwd);
  try {
    return await work();
  } finally {
    process.chdir(here);
  }
}

/** The host's getProvider: the text's handler, then configure before anything else. */
async function load(text: string, req = GOOD): Promise<Provider> {
  const provider = (requireFromString(text) as { handler: () => Provider }).handler();
  await provider.configure!(req);
  return provider;
}

/** The implementation gives the current error for a version the OS does not have. */
async function answersAsThisRelease(provider: Provider): Promise<void> {
  const checked = await provider.check!({}, { os: "ubuntu", version: "23.04" });
  expect(checked.failures?.map((f) => f.property)).toEqual(["version"]);
  const d = await provider.diff!("101", { os: "ubuntu", version: "24.04", vmid: 101 }, { os: "debian", version: "12" });
  expect(d.replaces).toEqual(expect.arrayContaining(["os"]));
}

let scratch: string;
/** A program's folder with the package installed (a link to this checkout). */
let program: string;
/** A folder from which the package cannot be resolved. */
let elsewhere: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-serialized-"));
  program = path.join(scratch, "program");
  elsewhere = path.join(scratch, "elsewhere");
  fs.mkdirSync(path.join(program, "node_modules"), { recursive: true });
  fs.symlinkSync(ROOT, path.join(program, "node_modules", "go-pve-qemu-pulumi"), "dir");
  fs.mkdirSync(elsewhere);
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe("the stored text", () => {
  it("is one function: before configure the host's object has no other method", async () => {
    const provider = (requireFromString(await storedText()) as { handler: () => Provider }).handler();
    expect(Object.keys(provider)).toEqual(["configure"]);
  });

  it("names the implementation by package and by the recorded path, and nothing else of the library", async () => {
    const text = await storedText();
    expect(text).toContain(JSON.stringify("go-pve-qemu-pulumi/provider-impl"));
    expect(text).toContain(JSON.stringify(DIST_IMPL));
    expect(text).not.toMatch(/GoPveQemuClient|lifecycle/);
  });

  it("configure puts the implementation's methods on it, found through the package from the program's folder", async () => {
    // The recorded copy is gone: only the package can have been loaded.
    const text = (await storedText()).replace(JSON.stringify(DIST_IMPL), JSON.stringify(MISSING_PATH));
    await within(program, async () => {
      const provider = await load(text);
      expect(METHODS.filter((m) => typeof provider[m] === "function")).toEqual([...METHODS]);
      await answersAsThisRelease(provider);
    });
  });

  it("uses the recorded path when the program's folder does not resolve the package", async () => {
    const text = await storedText();
    await within(elsewhere, async () => answersAsThisRelease(await load(text)));
  });

  it("fails to load, saying which module, when neither resolves", async () => {
    const text = (await storedText()).replace(JSON.stringify(DIST_IMPL), JSON.stringify(MISSING_PATH));
    await expect(within(elsewhere, () => load(text))).rejects.toThrow(MISSING_PATH);
  });

  it("keeps the methods after a configure that fails, so every call reports the bad setting", async () => {
    const bad = configRequest({ "goPveQemu:endpoint": "http://127.0.0.1:1", "goPveQemu:pollIntervalMs": "soon" });
    const provider = (requireFromString(await storedText()) as { handler: () => Provider }).handler();
    await expect(provider.configure!(bad)).rejects.toThrow("goPveQemu:pollIntervalMs");
    await expect(provider.check!({}, { os: "ubuntu", version: "24.04" })).rejects.toThrow("goPveQemu:pollIntervalMs");
    // Leave the implementation (module state, shared in this process) configured well.
    await provider.configure!(GOOD);
  });
});

describe("the previous release's text", () => {
  it("loads this implementation through the package, its recorded copy gone", async () => {
    await within(program, async () => {
      const provider = await load(PREVIOUS.replace("@IMPL_PATH@", MISSING_PATH));
      expect(Object.keys(provider).sort()).toEqual([
        "check",
        "configure",
        "create",
        "delete",
        "diff",
        "read",
        "update",
      ]);
      await answersAsThisRelease(provider);
    });
  });

  it("loads this implementation from its recorded path when the package is not resolvable", async () => {
    await within(elsewhere, async () => answersAsThisRelease(await load(PREVIOUS.replace("@IMPL_PATH@", DIST_IMPL))));
  });
});
