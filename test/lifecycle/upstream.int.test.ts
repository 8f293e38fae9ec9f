// The real server's recorded answers (test/fixtures/upstream), replayed byte
// for byte to the real client, under observe, shutdown and destroy: the
// texts and shapes the lifecycle's rules match on are the real server's, not
// the simulator's. The list, which no recording here holds, comes from a stub.
import { GoPveQemuClient } from "../../provider/client";
import type { GoPveQemuApi } from "../../provider/client/api";
import { HttpStatusError } from "../../provider/client/errors";
import type { VmEntry } from "../../provider/client/schemas";
import type { LifecycleContext } from "../../provider/lifecycle";
import { destroyVm } from "../../provider/lifecycle/delete/delete";
import { observe } from "../../provider/lifecycle/observe/observe";
import { shutdownAndWait } from "../../provider/lifecycle/power/power";
import { redactor } from "../../provider/lifecycle/core/redact";
import { loadRecording, replay } from "../client/helpers/replay";
import type { ReplayServer } from "../client/helpers/replay";
import { listEntry } from "./fixtures";
import { ProcessScope } from "../../provider/lifecycle";

/** VM 150, the VMID of the recordings. */
const entry = (patch: Partial<VmEntry> = {}): VmEntry => listEntry({ vmid: 150, name: "web-150", ...patch });

const servers: ReplayServer[] = [];
const clients: GoPveQemuClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A real client talking to a replay of `name`. */
async function recorded(name: string): Promise<GoPveQemuClient> {
  const server = await replay(loadRecording(name));
  servers.push(server);
  const client = new GoPveQemuClient({ endpoint: server.url, requestTimeoutMs: 2_000 });
  clients.push(client);
  return client;
}

function ctxOf(client: GoPveQemuApi): LifecycleContext & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    process: new ProcessScope(),
    reporter: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`), debug: () => undefined },
    client: () => client,
    timing: { pollIntervalMs: 10 },
  };
}

test("status of a VM on another node (status-vm-on-other-node.raw): observe answers from the list", async () => {
  const real = await recorded("status-vm-on-other-node.raw");
  // asked only for a VM the list shows stopped
  const listed = entry({ node: "pve2", running: false });
  const client = { list: async () => ({ vms: [listed], nodes: [] }), status: real.status.bind(real) };
  const seen = await observe(client as unknown as GoPveQemuApi, 150, { vmName: "web-150" });
  expect(seen.running).toBe(false);
  expect(seen.statusError).toBeInstanceOf(HttpStatusError);
  expect((seen.statusError as HttpStatusError).status).toBe(500);
  expect((seen.statusError as HttpStatusError).serverMessage).toBe("failed to get VM status: exit status 2");
});

test("the real shutdown's `ok` (shutdown-ok.raw) and the status right after (status-right-after-shutdown.raw): graceful", async () => {
  const shutdown = await recorded("shutdown-ok.raw");
  const status = await recorded("status-right-after-shutdown.raw");
  const client = {
    list: async () => ({ vms: [entry({ running: false })], nodes: [] }),
    shutdown: shutdown.shutdown.bind(shutdown),
    status: status.status.bind(status),
    stop: async () => {
      throw new Error("no hard stop expected");
    },
  } as unknown as GoPveQemuApi;
  const ctx = ctxOf(client);
  expect(await shutdownAndWait(client, 150, "web-150 (150)", ctx, redactor([]))).toBe("graceful");
  expect(ctx.lines).toEqual([]);
});

test("destroy of a VMID with no config (destroy-missing-vm.raw): gone once the list confirms it", async () => {
  const real = await recorded("destroy-missing-vm.raw");
  let listed = true;
  const client = {
    list: async () => ({ vms: listed ? [entry({ running: false })] : [], nodes: [] }),
    status: async () => "stopped",
    destroy: async (vmid: number) => {
      listed = false; // removed by hand meanwhile: the server finds no node to run qm on
      return real.destroy(vmid);
    },
  } as unknown as GoPveQemuApi;
  expect(await destroyVm(client, 150, "web-150 (150)", ctxOf(client), redactor([]), "web-150")).toBe("gone");
});

test("the same answer while the list still shows the VM is a refusal quoting the server", async () => {
  const real = await recorded("destroy-missing-vm.raw");
  const client = {
    list: async () => ({ vms: [entry({ running: false })], nodes: [] }),
    status: async () => "stopped",
    destroy: real.destroy.bind(real),
  } as unknown as GoPveQemuApi;
  await expect(destroyVm(client, 150, "web-150 (150)", ctxOf(client), redactor([]), "web-150")).rejects.toThrow(
    "the server refused to destroy VM web-150 (150): failed to destroy VM: failed to destroy VM: exit status 255, output: ssh: Could not resolve hostname : Name or service not known",
  );
});
