// The contract of the one patch of the SDK's internals (provider/engine/
// grpc-add-service-patch.ts): the plugin's gRPC server, started in this
// process as the engine starts it, answers Configure, CheckConfig, Invoke and
// Diff with this provider's own handlers over a real grpc-js client. An SDK
// upgrade that stops handing its provider object to grpc-js's addService,
// or renames those methods, fails here in seconds.
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { configure, type ProviderCore } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { startInProcess, Struct } from "../plugin/in-process";
import { startSimulator, type SimulatorHandle } from "../../simulator";

interface StructType {
  toJavaScript(): unknown;
}

let core: ProviderCore;
let client: provrpc.ResourceProviderClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  core = configure({ env: {}, engineUnknown: ENGINE_UNKNOWN });
  const plugin = await startInProcess(core);
  expect(plugin.port).toMatch(/^\d+$/);
  ({ client, stop } = plugin);
});

afterAll(() => stop?.());

const call = <Req, Res>(method: (req: Req, cb: (err: Error | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => method.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));

test("CheckConfig is this provider's: each bad setting by key, and the stack's identity made as a secret", async () => {
  const req = new provproto.CheckRequest();
  req.setOlds(Struct.fromJavaScript({}) as never);
  req.setNews(Struct.fromJavaScript({ endpoint: "http://127.0.0.1:1", pollIntervalMs: "soon" }) as never);
  const res = await call<provproto.CheckRequest, provproto.CheckResponse>(client.checkConfig, req);
  expect(res.getFailuresList().map((f) => f.getProperty())).toEqual(["pollIntervalMs"]);
  const inputs = (res.getInputs() as unknown as StructType).toJavaScript() as Record<string, unknown>;
  expect(inputs.endpoint).toBe("http://127.0.0.1:1");
  expect(JSON.stringify(inputs.stackIdentity)).toMatch(/[0-9a-f]{32}/);
});

test("Configure reaches the provider core: its settings and identity are the request's", async () => {
  const req = new provproto.ConfigureRequest();
  const identity = "c".repeat(32);
  req.setArgs(Struct.fromJavaScript({ endpoint: "http://127.0.0.1:9", stackIdentity: identity }) as never);
  await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(client.configure, req);
  expect(core.settings().connection.endpoint).toBe("http://127.0.0.1:9");
  expect(core.providerIdentity).toBe(identity);
});

describe("Invoke is this provider's: the request's preview reaches the core", () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ nodes: ["pve1", "pve2"] });
  });
  afterAll(() => sim.close());

  const configureWith = async (args: Record<string, unknown>) => {
    const req = new provproto.ConfigureRequest();
    req.setArgs(Struct.fromJavaScript(args) as never);
    await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(client.configure, req);
  };
  const invoke = async (token: string, preview: boolean) => {
    const req = new provproto.InvokeRequest();
    req.setTok(token);
    req.setArgs(Struct.fromJavaScript({}) as never);
    req.setPreview(preview);
    const res = await call<provproto.InvokeRequest, provproto.InvokeResponse>(client.invoke, req);
    return (res.getReturn() as unknown as StructType).toJavaScript() as Record<string, unknown>;
  };

  test("offline, a preview's getNodes and getVms ask nothing and answer empty lists; the deployment's read the server", async () => {
    await configureWith({ endpoint: sim.url, offline: true });
    const before = { ...sim.stats().requests };
    expect(await invoke("gopveqemu:index:getNodes", true)).toEqual({ nodes: [] });
    expect(await invoke("gopveqemu:index:getVms", true)).toEqual({ vms: [] });
    expect(sim.stats().requests).toEqual(before);
    const { nodes } = (await invoke("gopveqemu:index:getNodes", false)) as { nodes: { name: string }[] };
    expect(nodes.map((n) => n.name)).toEqual(["pve1", "pve2"]);
  });

  test("without offline, a preview reads the server too", async () => {
    await configureWith({ endpoint: sim.url });
    const { vms } = (await invoke("gopveqemu:index:getVms", true)) as { vms: unknown[] };
    expect(vms).toEqual([]);
  });

  test("an unknown function is refused, naming the ones there are", async () => {
    await expect(invoke("gopveqemu:index:getDisks", false)).rejects.toThrow(
      /unknown function gopveqemu:index:getDisks; this provider has gopveqemu:index:getNodes, gopveqemu:index:getVms/,
    );
  });
});

describe("Diff is this provider's: the changed keys and each one's kind reach the engine", () => {
  const VM_URN = "urn:pulumi:dev::proj::gopveqemu:index:Vm::web";
  const secretOf = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
  /** A VM's state as the engine sends it back: the password and connection secrets. */
  const olds = {
    vmid: 120,
    vmName: "web-120",
    node: "pve1",
    os: "ubuntu",
    version: "24.04",
    user: "ubuntu",
    cpu: 2,
    memoryMb: 2048,
    diskGb: 16,
    running: true,
    password: secretOf("first-pass"),
    connection: secretOf({ endpoint: "http://127.0.0.1:9", token: "t0ken" }),
    inputs: { os: "ubuntu", version: "24.04", name: "web" },
    installComplete: true,
  };
  const identity = secretOf("d".repeat(32));
  /** A protobuf enum's name of a value (the generated enums have no reverse mapping). */
  const nameOf = (e: object, v: number) => Object.entries(e).find(([, n]) => n === v)?.[0];
  const diff = async (news: Record<string, unknown>, urn = VM_URN) => {
    const req = new provproto.DiffRequest();
    req.setId("120");
    req.setUrn(urn);
    req.setOlds(Struct.fromJavaScript(olds) as never);
    req.setNews(Struct.fromJavaScript({ __stackIdentity: identity, ...news }) as never);
    const res = await call<provproto.DiffRequest, provproto.DiffResponse>(client.diff, req);
    const kinds: Record<string, string> = {};
    res.getDetaileddiffMap().forEach((p, key) => {
      kinds[key] = `${nameOf(provproto.PropertyDiff.Kind, p.getKind())}${p.getInputdiff() ? " (inputs)" : ""}`;
    });
    return {
      changes: nameOf(provproto.DiffResponse.DiffChanges, res.getChanges()),
      replaces: res.getReplacesList(),
      diffs: res.getDiffsList(),
      kinds,
      hasDetailedDiff: res.getHasdetaileddiff(),
      deleteBeforeReplace: res.getDeletebeforereplace(),
    };
  };
  beforeAll(async () => {
    const req = new provproto.ConfigureRequest();
    req.setArgs(Struct.fromJavaScript({ endpoint: "http://127.0.0.1:9" }) as never);
    await call<provproto.ConfigureRequest, provproto.ConfigureResponse>(client.configure, req);
  });

  test("replaces, updates, adds and deletes, from secret-wrapped values, with no key of the engine's", async () => {
    const news = {
      os: "ubuntu",
      version: "22.04",
      password: secretOf("second-pass"),
      cpu: 4,
      rebootTriggers: ["x"],
      connection: secretOf({ token: "other-t0ken" }),
    };
    expect(await diff(news)).toEqual({
      changes: "DIFF_SOME",
      replaces: ["version", "name", "password"],
      diffs: ["version", "name", "password", "cpu", "rebootTriggers", "connection"],
      kinds: {
        version: "UPDATE_REPLACE",
        // the name on record is left out now; the state keeps no name of its own: compared with the inputs
        name: "DELETE_REPLACE (inputs)",
        password: "UPDATE_REPLACE",
        cpu: "UPDATE",
        rebootTriggers: "ADD (inputs)",
        connection: "UPDATE",
      },
      hasDetailedDiff: true,
      // no name given: the new VM would carry this resource's own mark, so the old one goes first
      deleteBeforeReplace: true,
    });
  });

  test("an update alone still says how a replace would be made (replaceOnChanges may make one of it)", async () => {
    expect(await diff({ os: "ubuntu", version: "24.04", name: "web", cpu: 4 })).toEqual({
      changes: "DIFF_SOME",
      replaces: [],
      diffs: ["cpu"],
      kinds: { cpu: "UPDATE" },
      hasDetailedDiff: true,
      deleteBeforeReplace: false,
    });
    expect((await diff({ os: "ubuntu", version: "24.04", name: "web", vmid: 120, cpu: 4 })).deleteBeforeReplace).toBe(
      true,
    );
  });

  test("values not known yet (preview) are changes, a replace for a replace key", async () => {
    const r = await diff({ os: "ubuntu", version: ENGINE_UNKNOWN, name: "web", cpu: ENGINE_UNKNOWN });
    expect(r).toMatchObject({ changes: "DIFF_SOME", replaces: ["version"], diffs: ["version", "cpu"] });
    expect(r.kinds).toEqual({ version: "UPDATE_REPLACE", cpu: "UPDATE" });
  });

  test("no change: DIFF_NONE, an empty detailed diff, still a detailed one", async () => {
    expect(await diff({ os: "ubuntu", version: "24.04", name: "web", password: secretOf("first-pass") })).toEqual({
      changes: "DIFF_NONE",
      replaces: [],
      diffs: [],
      kinds: {},
      hasDetailedDiff: true,
      deleteBeforeReplace: false,
    });
  });

  test("a resource of another type is refused, as by every other call", async () => {
    // said on stderr too, as the SDK's own Diff does
    const said = jest.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(diff({ os: "ubuntu" }, "urn:pulumi:dev::proj::gopveqemu:index:Disk::d")).rejects.toThrow(
      /unknown resource type gopveqemu:index:Disk; this provider has gopveqemu:index:Vm/,
    );
    expect(said).toHaveBeenCalledWith(expect.stringContaining("unknown resource type gopveqemu:index:Disk"));
    said.mockRestore();
  });
});
