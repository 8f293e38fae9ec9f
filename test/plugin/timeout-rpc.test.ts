// customTimeouts through the plugin's gRPC server, started in this process as
// the engine starts it: the `timeout` of a CreateRequest and a DeleteRequest
// reaches the operation (Pulumi's Node.js server would drop it), a deadline
// that passes answers the SDK's own partial failure (the VM's id and state in
// grpc-status-details-bin, as ErrorResourceInitFailed), and 0 means none.
import type * as grpcType from "@grpc/grpc-js";
import * as provrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { configure } from "../../provider/core";
import { ENGINE_UNKNOWN } from "../../provider/engine";
import { startSimulator, type SimulatorHandle } from "../../simulator";
import { startInProcess, Struct } from "./in-process";

jest.setTimeout(60_000);

const urnOf = (name: string) => `urn:pulumi:dev::p::gopveqemu:index:Vm::${name}`;

let sim: SimulatorHandle;
let journalDir: string;
let client: provrpc.ResourceProviderClient;
let stop: () => Promise<void>;

beforeAll(async () => {
  sim = await startSimulator({ speed: 2000, sshKey: true, imageCache: ["ubuntu/24.04"] });
  journalDir = mkdtempSync(path.join(tmpdir(), "timeout-rpc-"));
  const quiet = () => async () => undefined;
  const core = configure({ env: { GO_PVE_QEMU_JOURNAL_DIR: journalDir }, engineUnknown: ENGINE_UNKNOWN, log: quiet });
  ({ client, stop } = await startInProcess(core));
  const req = new provproto.ConfigureRequest();
  req.setArgs(
    Struct.fromJavaScript({ endpoint: sim.url, pollIntervalMs: "50", stackIdentity: "e".repeat(32) }) as never,
  );
  await call(client.configure, req);
});

afterAll(async () => {
  await stop?.();
  await sim.close();
  rmSync(journalDir, { recursive: true, force: true });
});

function call<Req, Res>(
  method: (req: Req, cb: (err: grpcType.ServiceError | null, res: Res) => void) => unknown,
  req: Req,
) {
  return new Promise<Res>((resolve, reject) =>
    method.call(client, req, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

function createRequest(name: string, vmid: number, timeout: number): provproto.CreateRequest {
  const req = new provproto.CreateRequest();
  req.setUrn(urnOf(name));
  req.setProperties(Struct.fromJavaScript({ os: "ubuntu", version: "24.04", name, vmid }) as never);
  req.setTimeout(timeout);
  return req;
}

test("a CreateRequest's timeout bounds the create: a partial failure naming it, with the VM's id for state", async () => {
  sim.settings({ speed: 2 });
  const t0 = Date.now();
  const err = await call(client.create, createRequest("web", 150, 1)).then(
    () => undefined,
    (e: grpcType.ServiceError) => e,
  );
  sim.settings({ speed: 2000 });
  expect((Date.now() - t0) / 1000).toBeLessThan(4);
  expect(err?.details).toMatch(/^customTimeouts create 1s passed at "install/);
  // The SDK's ErrorResourceInitFailed: the engine records VM 150 from it.
  const status = err?.metadata.get("grpc-status-details-bin")[0];
  expect(Buffer.isBuffer(status) && status.toString("latin1")).toMatch(/pulumirpc\.ErrorResourceInitFailed[\s\S]*150/);
});

test("timeout 0 is none; a DeleteRequest's timeout bounds the delete", async () => {
  await sim.idle();
  const made = await call<provproto.CreateRequest, provproto.CreateResponse>(
    client.create,
    createRequest("db", 151, 0),
  );
  expect(made.getId()).toBe("151");
  sim.addFault({ op: "destroy", vmid: 151, kind: "hang" });
  const req = new provproto.DeleteRequest();
  req.setId("151");
  req.setUrn(urnOf("db"));
  req.setProperties(made.getProperties());
  req.setTimeout(1);
  // The SDK's server prints a failed delete on stderr (the engine's log, in a real run): kept out of the test's output.
  const printed = jest.spyOn(console, "error").mockImplementation(() => undefined);
  await expect(call(client.delete, req)).rejects.toThrow(/customTimeouts delete 1s passed at "destroying VM db-151/);
  expect(printed).toHaveBeenCalled();
  printed.mockRestore();
  expect(sim.vm(151)).toBeDefined();
});
