// The data sources' view of the list: nodes with their percentages as GiB,
// VMs under the provider's names with the disabled mark, and placement over
// them. A node entry the server garbles must never fail the list that every
// VM operation reads.
import { ListResponseSchema } from "../../provider/client/schemas";
import { byFreeMemory, pickEmptiest, type NodeInfo } from "../../provider/data";
import { readCluster } from "../../provider/cluster";
import { startSimulator } from "../../simulator";
import { freePort } from "../../scripts/ports";

const node = (name: string, memoryFreeGb: number, running = true): NodeInfo => ({
  name,
  running,
  cores: 8,
  memoryGb: 64,
  memoryUsedGb: 64 - memoryFreeGb,
  memoryFreeGb,
  diskGb: 100,
});

describe("pickEmptiest and byFreeMemory", () => {
  test("the running node with the most free memory; ties by name", () => {
    expect(pickEmptiest([node("pve1", 10), node("pve2", 40), node("pve3", 20)])).toBe("pve2");
    expect(pickEmptiest([node("pve3", 40), node("pve2", 40)])).toBe("pve2");
    expect(pickEmptiest([node("pve1", 10), node("pve2", 60, false)])).toBe("pve1");
    expect(byFreeMemory([node("a", 1), node("b", 3), node("c", 2, false)]).map((n) => n.name)).toEqual(["b", "a"]);
  });

  test("no running node is an error naming the nodes", () => {
    expect(() => pickEmptiest([node("pve1", 10, false)])).toThrow(
      /no running node to place a VM on \(the cluster's nodes: pve1\)/,
    );
    expect(() => pickEmptiest([])).toThrow(/nodes: none/);
  });
});

describe("the list's node entries", () => {
  test("figures that are missing or malformed read as absent, and the VMs still parse", () => {
    const parsed = ListResponseSchema.parse({
      list: [{ vmid: 101, name: "a-101", os: "debian", running: true, node: "pve1", cpu: 2, disk: 16, memory: 2 }],
      cluster: [{ node: "pve1", max_cpu: "lots", max_memory: null, running: "yes" }, { name: "pve2" }],
    });
    expect(parsed.vms).toHaveLength(1);
    expect(parsed.nodes[0]).toMatchObject({
      node: "pve1",
      max_cpu: undefined,
      max_memory: undefined,
      running: undefined,
    });
  });
});

describe("readCluster against the simulator", () => {
  test("nodes in GiB from the list's percentages, VMs in the list's fields, a disabled VM marked", async () => {
    const sim = await startSimulator({
      nodes: [
        { name: "pve1", maxCpu: 16, maxMemoryMb: 65_536 },
        { name: "pve2", maxCpu: 8, maxMemoryMb: 32_768, online: false },
      ],
      disabled: [{ vmid: 180, name: "locked-180" }],
    });
    try {
      sim.addVm({
        vmid: 120,
        name: "web-120",
        os: "ubuntu",
        cpu: 2,
        memoryMb: 3000,
        diskGb: 20,
        running: true,
        memoryUsedMb: 16_384,
      });
      sim.addVm({ vmid: 180, name: "locked-180", os: "debian" });
      const cluster = await readCluster({ endpoint: sim.url }, 5000);
      expect(cluster.nodes).toEqual([
        { name: "pve1", running: true, cores: 16, memoryGb: 64, memoryUsedGb: 16, memoryFreeGb: 48, diskGb: 100 },
        { name: "pve2", running: false, cores: 8, memoryGb: 32, memoryUsedGb: 0, memoryFreeGb: 32, diskGb: 100 },
      ]);
      expect(cluster.vms).toEqual([
        {
          vmid: 120,
          name: "web-120",
          os: "ubuntu",
          running: true,
          node: "pve1",
          cpu: 2,
          memoryGb: 2,
          memoryUsedGb: 16,
          diskGb: 20,
          disabled: false,
        },
        {
          vmid: 180,
          name: "locked-180",
          os: "-",
          running: true,
          node: "-",
          cpu: 0,
          memoryGb: 0,
          memoryUsedGb: 0,
          diskGb: 0,
          disabled: true,
        },
      ]);
    } finally {
      await sim.close();
    }
  });

  test("the server's own node, once known, is marked on every node; absent while unknown", async () => {
    const sim = await startSimulator({ nodes: ["pve1", "pve2"], mainNode: "pve2" });
    try {
      const unknown = await readCluster({ endpoint: sim.url }, 5000);
      expect(unknown.nodes.map((n) => "serverNode" in n)).toEqual([false, false]);
      const known = await readCluster({ endpoint: sim.url }, 5000, "pve2");
      expect(known.nodes.map((n) => [n.name, n.serverNode])).toEqual([
        ["pve1", false],
        ["pve2", true],
      ]);
    } finally {
      await sim.close();
    }
  });

  test("a server that cannot be reached: the sentence of the Vm checks, with the lifecycle's code", async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    await expect(readCluster({ endpoint }, 2000)).rejects.toMatchObject({
      message: expect.stringMatching(
        new RegExp(`^the go-pve-qemu server at ${endpoint} cannot be reached \\(.*connection refused`),
      ),
      code: "GPQ_UNREACHABLE",
    });
  });

  test("a server that does not answer within the time given: said so", async () => {
    const sim = await startSimulator({ faults: [{ op: "list", kind: "stall" }] });
    try {
      await expect(readCluster({ endpoint: sim.url }, 300)).rejects.toThrow(
        `the go-pve-qemu server at ${sim.url} cannot be reached (no answer within 300 ms)`,
      );
    } finally {
      await sim.close();
    }
  });

  test("a server that answers, but not with its list: said so", async () => {
    const sim = await startSimulator({
      faults: [{ op: "list", kind: "http", status: 500, body: "failed to get VM list" }],
    });
    try {
      await expect(readCluster({ endpoint: sim.url }, 2000)).rejects.toThrow(
        /did not list its nodes \(.*500.*failed to get VM list/,
      );
    } finally {
      await sim.close();
    }
  });
});
