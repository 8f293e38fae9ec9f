// The real server's recorded answers (test/fixtures/upstream), replayed byte
// for byte from a loopback server to the real client: every recording's
// outcome is pinned - success with its facts, or which failure shape at which
// step. A corrupted stream must read as "stream lost" (connection-lost), never
// as success and never as a definite server failure.
import { GoPveQemuClient } from "../../provider/client";
import { HttpStatusError, OperationFailedError } from "../../provider/client/errors";
import type { FailureShape, InstallSuccess, OperationSuccess } from "../../provider/client/stream/types";
import { loadRecording, recordingNames, replay } from "./helpers/replay";

type Call = (c: GoPveQemuClient) => Promise<unknown>;

const INSTALL: Call = (c) => c.install({ os: "ubuntu", version: "24.04" });
const MIGRATE: Call = (c) => c.migrate(170, "pve2");

interface InstallDone {
  outcome: "install";
  vmid: number;
  ip: string;
  user: string;
  /** steps of the warnings (the recovered SSH-key error) */
  warnings: string[];
}
interface Failed {
  outcome: "failed";
  shape: FailureShape;
  step: string;
  vmid?: number;
  vmCreated?: boolean;
  /** the failure's server words, or the transport's */
  says: string | RegExp;
}
type Expected =
  | InstallDone
  | Failed
  | { outcome: "migrate" }
  | { outcome: "value"; value: unknown }
  | { outcome: "http"; status: number; says: string };

const LOST_FRAMING = "Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)";

const EXPECTED: Record<string, { call: Call; expect: Expected }> = {
  "destroy-missing-vm.raw": {
    call: (c) => c.destroy(150),
    expect: {
      outcome: "http",
      status: 500,
      says: "failed to destroy VM: failed to destroy VM: exit status 255, output: ssh: Could not resolve hostname : Name or service not known",
    },
  },
  "install-chatty-init-broken-framing.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "connection-lost",
      step: "VM initialization > SSH initialization",
      vmid: 172,
      vmCreated: true,
      says: LOST_FRAMING,
    },
  },
  "install-chatty-init-odd.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "connection-lost",
      step: "SSH initialization",
      vmid: 172,
      vmCreated: true,
      says: "Response does not match the HTTP/1.1 protocol (Expected LF after chunk data)",
    },
  },
  "install-first-ssh-key-created.raw": {
    call: INSTALL,
    expect: {
      outcome: "install",
      vmid: 150,
      ip: "192.168.0.150",
      user: "ubuntu",
      warnings: ["SSH preparation > checking SSH key"],
    },
  },
  "install-image-url-404.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "error-event",
      step: "OS preparation > validating OS image URL",
      vmid: 159,
      vmCreated: false,
      says: "[-] OS image URL is not accessible: failed to access URL: 404 Not Found",
    },
  },
  "install-init-script-fails-cleaned-up.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "error-event",
      step: "VM initialization > SSH initialization",
      vmid: 162,
      vmCreated: true,
      says: "[-] failed to perform SSH initialization: exit status 1",
    },
  },
  "install-node-main-refused.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "no-completion",
      step: "migrating",
      vmid: 156,
      vmCreated: true,
      says: "400 Parameter verification failed.",
    },
  },
  "install-node-pve2-migration.raw": {
    call: INSTALL,
    expect: { outcome: "install", vmid: 155, ip: "192.168.0.155", user: "ubuntu", warnings: [] },
  },
  "install-qm-start-fails-vm-left.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "no-completion",
      step: "VM initialization > initializing configuration",
      vmid: 163,
      vmCreated: true,
      says: /failed at step "VM initialization > initializing configuration" \(the stream closed without/,
    },
  },
  "install-sized.raw": {
    call: INSTALL,
    expect: { outcome: "install", vmid: 151, ip: "192.168.0.151", user: "ubuntu", warnings: [] },
  },
  "install-vmid-taken.raw": {
    call: INSTALL,
    expect: {
      outcome: "failed",
      shape: "error-event",
      step: "VM creation > creating VM",
      vmid: 150,
      vmCreated: false,
      says: "[-] failed to create VM: exit status 255",
    },
  },
  "set-node-broken-chunk-framing-a.raw": {
    call: MIGRATE,
    expect: { outcome: "failed", shape: "connection-lost", step: "migrating", says: LOST_FRAMING },
  },
  "set-node-broken-chunk-framing-b.raw": {
    call: MIGRATE,
    expect: { outcome: "failed", shape: "connection-lost", step: "migrating", says: LOST_FRAMING },
  },
  "set-node-pve2.raw": { call: MIGRATE, expect: { outcome: "migrate" } },
  "shutdown-ok.raw": { call: (c) => c.shutdown(151), expect: { outcome: "value", value: undefined } },
  "status-right-after-shutdown.raw": { call: (c) => c.status(151), expect: { outcome: "value", value: "stopped" } },
  "status-vm-on-other-node.raw": {
    call: (c) => c.status(151),
    expect: { outcome: "http", status: 500, says: "failed to get VM status: exit status 2" },
  },
};

test("every recording has a pinned outcome, and every pinned outcome a recording", () => {
  expect(Object.keys(EXPECTED).sort()).toEqual(recordingNames());
});

describe.each(recordingNames())("%s", (name) => {
  test("replayed to the client: the outcome is pinned", async () => {
    const recording = loadRecording(name);
    const server = await replay(recording);
    // A short idle limit: a recording that stalls must end as a lost stream, not hang the test.
    const client = new GoPveQemuClient({ endpoint: server.url, streamIdleTimeoutMs: 2_000, requestTimeoutMs: 2_000 });
    const { call, expect: want } = EXPECTED[name]!;
    try {
      const result = await call(client).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (want.outcome === "failed") {
        expect(result.ok).toBe(false);
        const err = (result as { error: unknown }).error;
        expect(err).toBeInstanceOf(OperationFailedError);
        const e = err as OperationFailedError;
        expect([e.shape, e.step]).toEqual([want.shape, want.step]);
        if (typeof want.says === "string") expect(e.serverMessage).toBe(want.says);
        else expect(e.message).toMatch(want.says);
        if (want.vmid !== undefined) expect(e.facts).toMatchObject({ vmid: want.vmid, vmCreated: want.vmCreated });
        // A lost stream is never presented as the server's own verdict.
        if (want.shape === "connection-lost") expect(e.code).toBe("GPQ_STREAM_LOST");
      } else if (want.outcome === "http") {
        const err = (result as { error: unknown }).error;
        expect(err).toBeInstanceOf(HttpStatusError);
        expect([(err as HttpStatusError).status, (err as HttpStatusError).serverMessage]).toEqual([
          want.status,
          want.says,
        ]);
      } else {
        if (!result.ok) throw result.error;
        if (want.outcome === "install") {
          const v = result.value as InstallSuccess;
          expect(v.facts).toMatchObject({ vmid: want.vmid, ip: want.ip, user: want.user, completed: true });
          expect(v.warnings.map((w) => w.step)).toEqual(want.warnings);
        } else if (want.outcome === "migrate") {
          expect((result.value as OperationSuccess).kind).toBe("migrate");
        } else {
          expect(result.value).toEqual(want.value);
        }
      }
      expect(server.requests).toHaveLength(1);
      // The recordings that never ended are the corrupted ones, and only they lose the stream.
      expect(!recording.ended).toBe(want.outcome === "failed" && want.shape === "connection-lost");
    } finally {
      await client.close();
      await server.close();
    }
  });
});
