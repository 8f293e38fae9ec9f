// What the resource plugin's Diff tells the engine, through the real engine
// from a YAML program (test/consumers/yaml-diff/Pulumi.yaml): each preview
// changes some of `web`'s inputs in the stack's config, and `pulumi preview
// --json` gives each change's reasons and kind as the plugin answered them;
// `replaceOnChanges: [cpu]` turns a cpu change into a replace, which `up`
// makes: a new VM, the old one gone. One stack, made once.
import { yamlDriver } from "./drivers";
import { newConsumer, type Consumer, type Run, type StackConfig } from "./harness";

jest.setTimeout(300_000);

const PASSWORD = "first-pass-7c3e";
const TOKEN = "tok-yaml-diff-5b8a1f";
/** The config the VMs were made with; each preview changes some keys, then puts them back. */
const MADE_WITH = {
  // ubuntu, 24.04 (the program's lists)
  osIndex: "0",
  versionIndex: "0",
  name: "web",
  cpu: "2",
  memoryMb: "2048",
  diskGb: "16",
  node: "pve1",
  running: "true",
  trigger: "v1",
};

interface Step {
  op: string;
  urn: string;
  diffReasons?: string[];
  replaceReasons?: string[];
  detailedDiff?: Record<string, { kind: string; inputDiff: boolean }>;
}

function shown(run: Run): string {
  return `exit ${run.code}\n${run.output.slice(-4000)}`;
}

let consumer: Consumer;
let original: StackConfig;

beforeAll(async () => {
  consumer = await newConsumer(yamlDriver("yaml-diff"));
  original = {
    "gopveqemu:endpoint": consumer.endpoint,
    "gopveqemu:token": { secret: TOKEN },
    endpoint: consumer.endpoint,
    password: { secret: PASSWORD },
    ...MADE_WITH,
  };
  await consumer.setConfig(original);
  const up = await consumer.run("up");
  expect(shown(up)).toMatch(/^exit 0\n/);
}, 900_000);
afterAll(() => consumer?.dispose());

/** `pulumi preview --json` with `changes` in the stack's config (put back after): the steps on `resource`. */
async function preview(changes: StackConfig, resource = "web"): Promise<Step[]> {
  await consumer.setConfig(changes);
  const run = await consumer.pulumi(["preview", "--json", "--non-interactive", "--stack", "consumer"]);
  await consumer.setConfig(Object.fromEntries(Object.keys(changes).map((k) => [k, original[k]!])));
  expect(shown(run)).toMatch(/^exit 0\n/);
  // The digest is the one JSON object printed; the plugin's stderr may come around it.
  const json = run.output.slice(run.output.indexOf("{\n"), run.output.lastIndexOf("\n}") + 2);
  const steps = (JSON.parse(json) as { steps?: Step[] }).steps ?? [];
  return steps.filter((s) => s.urn.endsWith(`::${resource}`) && s.op !== "same");
}

const kinds = (step: Step | undefined) =>
  Object.fromEntries(Object.entries(step?.detailedDiff ?? {}).map(([k, d]) => [k, d.kind]));

test("updates: each changed key is a reason, an update of the state's value", async () => {
  const steps = await preview({
    memoryMb: "4096",
    diskGb: "32",
    node: "pve2",
    running: "false",
    trigger: "v2",
    endpoint: consumer.sim.url,
  });
  expect(steps.map((s) => s.op)).toEqual(["update"]);
  const keys = ["memoryMb", "diskGb", "node", "running", "rebootTriggers", "connection"];
  expect([...steps[0]!.diffReasons!].sort()).toEqual([...keys].sort());
  expect(kinds(steps[0])).toEqual(Object.fromEntries(keys.map((k) => [k, "update"])));
  // The old value shown is the state's, but for rebootTriggers, which only the inputs keep.
  expect(steps[0]!.detailedDiff!.rebootTriggers!.inputDiff).toBe(true);
  expect(steps[0]!.detailedDiff!.memoryMb!.inputDiff).toBe(false);
});

test("replaces: version, name and password, each an update-replace", async () => {
  const steps = await preview({ versionIndex: "1", name: "api", password: { secret: "second-pass-9d2f" } });
  const replace = steps.find((s) => s.op === "replace");
  expect([...replace!.replaceReasons!].sort()).toEqual(["name", "password", "version"]);
  expect(kinds(replace)).toEqual({ version: "update-replace", name: "update-replace", password: "update-replace" });
});

test("os: a replace; the user omitted follows it, a delete of the state's user", async () => {
  const steps = await preview({ osIndex: "1", versionIndex: "2" });
  const replace = steps.find((s) => s.op === "replace");
  expect(kinds(replace)).toEqual({ os: "update-replace", version: "update-replace", user: "delete-replace" });
});

test("cpu: the provider says update; replaceOnChanges makes it a replace on web, not on plain", async () => {
  const plain = await preview({ cpu: "4" }, "plain");
  expect(plain.map((s) => s.op)).toEqual(["update"]);
  expect(plain[0]!.diffReasons).toEqual(["cpu"]);
  expect(plain[0]!.detailedDiff).toEqual({ cpu: { kind: "update", inputDiff: false } });

  const web = await preview({ cpu: "4" });
  const replace = web.find((s) => s.op === "replace");
  expect(replace?.replaceReasons).toEqual(["cpu"]);
  expect(kinds(replace)).toEqual({ cpu: "update-replace" });
});

test("up with a cpu change replaces web: a new VMID on the server, the old VM gone; plain is updated where it is", async () => {
  const before = new Map(consumer.sim.vms().map((v) => [v.name.split("-")[0], v.vmid]));
  await consumer.setConfig({ cpu: "4" });
  const up = await consumer.run("up");
  expect(shown(up)).toMatch(/^exit 0\n/);
  const after = consumer.sim.vms();
  const web = after.filter((v) => v.name.startsWith("web-"));
  expect(web.map((v) => v.cpu)).toEqual([4]);
  expect(web[0]!.vmid).not.toBe(before.get("web"));
  expect(after.some((v) => v.vmid === before.get("web"))).toBe(false);
  expect(after.filter((v) => v.name.startsWith("plain-")).map((v) => [v.vmid, v.cpu])).toEqual([
    [before.get("plain"), 4],
  ]);
  // and the next preview has nothing to do
  const again = await consumer.run("preview");
  expect(shown(again)).toMatch(/^exit 0\n/);
});

test("no run printed or kept the password or the token", () => {
  for (const secret of [PASSWORD, "second-pass-9d2f", TOKEN]) {
    expect(consumer.printed()).not.toContain(secret);
    expect(consumer.stateText()).not.toContain(secret);
  }
});
