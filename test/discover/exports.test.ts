// The VMs that stack exports hold: a real export of this provider's 0.1.0
// (connections encrypted), one shown with --show-secrets, a pending create of
// an interrupted deployment, and every way a file can be wrong, each named
// as the option and file it came from.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { heldVms } from "../../provider/discover/exports";
import { DiscoverOptionError } from "../../provider/discover";

const FIXTURE = path.join(__dirname, "..", "fixtures", "upgrade", "v0.1.0", "stack.json");
const SIG = "4dabf18193072939515e22adb298388d";
const VM_TYPE = "pulumi-nodejs:dynamic/goPveQemu:Vm";

let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-exports-"))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

const vm = (name: string, extra: Record<string, unknown>) => ({
  urn: `urn:pulumi:prod::shop::${VM_TYPE}::${name}`,
  type: VM_TYPE,
  ...extra,
});

test("an export with its connections encrypted: every Vm by VMID, the server not known", () => {
  expect(heldVms([FIXTURE])).toEqual([
    { stack: "upgrade/v010", resourceName: "web", vmid: 121, name: "web", endpoint: undefined },
    { stack: "upgrade/v010", resourceName: "worker", vmid: 101, name: "worker", endpoint: undefined },
    { stack: "upgrade/v010", resourceName: "spare", vmid: 100, name: "spare", endpoint: undefined },
  ]);
});

test("shown secrets give the server; a pending create gives its name; other resources are not VMs", () => {
  const shown = {
    [SIG]: "1b47061264138c4ac30d75fd1eb44270",
    plaintext: JSON.stringify({ endpoint: "http://10.0.0.5:8080" }),
  };
  const exported = {
    version: 3,
    deployment: {
      resources: [
        { urn: "urn:pulumi:prod::shop::pulumi:pulumi:Stack::shop-prod", type: "pulumi:pulumi:Stack" },
        vm("db", { id: "130", outputs: { vmid: 130, connection: shown } }),
      ],
      pending_operations: [{ type: "creating", resource: vm("web", { id: "", inputs: { name: "web-3f9a0c12" } }) }],
    },
  };
  expect(heldVms([exported])).toEqual([
    { stack: "shop/prod", resourceName: "db", vmid: 130, name: undefined, endpoint: "http://10.0.0.5:8080" },
    { stack: "shop/prod", resourceName: "web", vmid: undefined, name: "web-3f9a0c12", endpoint: undefined },
  ]);
});

test("an empty stack holds nothing", () => {
  expect(heldVms([{ version: 3, deployment: { manifest: {} } }])).toEqual([]);
});

test.each([
  [
    "a missing file",
    () => path.join(dir, "nope.json"),
    /^excludeStackExports .*nope\.json: cannot be read \(no such file\)$/,
  ],
  [
    "a file that is no JSON",
    () => file("text.json", "pulumi says hi"),
    /text\.json: is not JSON \(.*\); give the output of `pulumi stack export`$/,
  ],
  [
    "JSON of another shape",
    () => file("other.json", '{"resources": []}'),
    /other\.json: is not a Pulumi stack export \(version: /,
  ],
  [
    "resources that are no list",
    () => file("bad.json", '{"version": 3, "deployment": {"resources": {}}}'),
    /is not a Pulumi stack export \(deployment\.resources: /,
  ],
])("%s is an option error naming the file", (_what, make, message) => {
  const source = make();
  let caught: unknown;
  try {
    heldVms([source]);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(DiscoverOptionError);
  expect(caught).toMatchObject({ option: "excludeStackExports", value: source });
  expect((caught as Error).message).toMatch(message);
});

test("an export given as an object is named by its place in the list", () => {
  expect(() =>
    heldVms([{ version: 3, deployment: { resources: [] } }, "not-an-export-object" as unknown as object]),
  ).toThrow(/cannot be read/);
  expect(() => heldVms([{ version: 3, deployment: { resources: [] } }, { deployment: 1 }])).toThrow(
    /^excludeStackExports \[1\]: is not a Pulumi stack export/,
  );
});
