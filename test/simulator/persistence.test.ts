// State across runs (state file), the handle's drift controls, the admin
// endpoints, option validation and the command line in a separate process.
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startSimulator } from "../../simulator";
import { lines, request, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();
const ROOT = path.resolve(__dirname, "../..");

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-sim-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("state file", () => {
  test("a second simulator on the same file sees the VMs, the SSH key and the image cache", async () => {
    const stateFile = path.join(dir, "state.json");
    const one = await start({ stateFile, vmidPick: "lowest" });
    const first = await request(one.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, name: "web", cpu: 2, ram: 2048 },
    });
    expect(lines(first.body)).toContain("SSH preparation > creating SSH key|processing|[*] create SSH key");
    await one.close();

    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    expect(saved).toMatchObject({ format: "go-pve-qemu-simulator/1", sshKey: true, images: ["ubuntu/24.04"] });
    expect(fs.readdirSync(dir)).toEqual(["state.json"]);

    const two = await start({ stateFile, vmidPick: "lowest" });
    const list = JSON.parse((await request(two.url, "GET", "/api/vm/list")).body);
    expect(list.list).toEqual([
      {
        vmid: 100,
        name: "web-100",
        os: "ubuntu",
        running: true,
        node: "pve1",
        cpu: 2,
        disk: 16,
        memory: 2,
        memory_used: 0,
      },
    ]);
    const second = await request(two.url, "POST", "/api/vm/install", { body: UBUNTU });
    const s = lines(second.body);
    expect(s.filter((l) => l.includes("|error|"))).toEqual([]);
    expect(s).toContain("OS preparation > using OS image|success|[+] using OS image (0.00s)");
    expect(s).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 101 (0.02s)");
  });

  test("changes made behind the provider's back are saved too", async () => {
    const stateFile = path.join(dir, "state.json");
    const one = await start({ stateFile, vms: [{ vmid: 101, cpu: 2 }, { vmid: 102 }] });
    one.mutateVm(101, { cpu: 6, running: true, node: "pve2" });
    expect(one.removeVm(102)).toBe(true);
    await one.close();
    const two = await start({ stateFile, vms: [{ vmid: 105 }] });
    expect(two.vms().map((v) => [v.vmid, v.cpu, v.status, v.node])).toEqual([[101, 6, "running", "pve2"]]);
  });

  test("a VM on a node the cluster no longer lists: list answers 200 with an empty body (Go's encoder refuses NaN)", async () => {
    const stateFile = path.join(dir, "state.json");
    const one = await start({ stateFile, nodes: ["pve1", "pve2", "pve3"], vms: [{ vmid: 101, node: "pve3" }] });
    await one.close();
    const two = await start({ stateFile, vmidPick: "lowest" });
    const r = await request(two.url, "GET", "/api/vm/list");
    expect([r.status, r.headers["content-type"], r.body]).toEqual([200, "application/json; charset=utf-8", ""]);
  });

  test("a broken state file is a clear error", async () => {
    const stateFile = path.join(dir, "state.json");
    fs.writeFileSync(stateFile, '{"format":"go-pve-qemu-simulator/1","vms":[{"vmid":"x"}]}');
    await expect(startSimulator({ stateFile })).rejects.toThrow(/state file .* is not valid/);
  });
});

describe("handle", () => {
  test("drift: mutateVm and removeVm show through the API", async () => {
    const sim = await start({ vms: [{ vmid: 101, cpu: 2, memoryMb: 2048, diskGb: 16 }] });
    sim.mutateVm(101, { cpu: 4, memoryMb: 8192, diskGb: 50, running: true });
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
    const list = JSON.parse((await request(sim.url, "GET", "/api/vm/list")).body);
    expect(list.list[0]).toMatchObject({ cpu: 4, memory: 8, memory_used: 2, disk: 50 });
    expect(() => sim.mutateVm(999, { cpu: 1 })).toThrow(/VM 999 does not exist/);
    expect(() => sim.mutateVm(101, { node: "pve7" })).toThrow(/unknown node "pve7"/);
    expect(() => sim.mutateVm(101, { cpu: "4" } as never)).toThrow(/invalid VM patch/);
    sim.removeVm(101);
    expect((await request(sim.url, "GET", "/api/vm/101/status")).status).toBe(500);
  });

  test("options are validated with clear errors", async () => {
    await expect(startSimulator({ speed: 0 })).rejects.toThrow(/invalid simulator options[\s\S]*speed/);
    await expect(startSimulator({ mainNode: "pve9" })).rejects.toThrow(/mainNode "pve9" is not one of the nodes/);
    await expect(startSimulator({ durations: { downloadImag: 1 } as never })).rejects.toThrow(/downloadImag/);
    await expect(startSimulator({ imageCache: ["ubuntu-24.04"] })).rejects.toThrow(/os\/version/);
  });
});

describe("admin endpoints", () => {
  test("faults, VMs, settings and state over HTTP under /_sim", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    const add = await request(sim.url, "POST", "/_sim/faults", {
      body: { id: "stop-101", op: "stop", vmid: 101, kind: "fail" },
    });
    expect([add.status, JSON.parse(add.body)]).toEqual([200, { ids: ["stop-101"] }]);
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).status).toBe(500);
    expect((await request(sim.url, "DELETE", "/_sim/faults/stop-101")).status).toBe(200);
    expect((await request(sim.url, "DELETE", "/_sim/faults/stop-101")).status).toBe(404);
    const bad = await request(sim.url, "POST", "/_sim/faults", { body: { kind: "nope" } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error).toMatch(/invalid fault rule/);

    const patched = await request(sim.url, "PATCH", "/_sim/vms/101", { body: { cpu: 8 } });
    expect(JSON.parse(patched.body)).toMatchObject({ vmid: 101, cpu: 8 });
    expect((await request(sim.url, "POST", "/_sim/vms", { body: { vmid: 102, name: "x" } })).status).toBe(200);
    expect((await request(sim.url, "DELETE", "/_sim/vms/102")).status).toBe(200);

    await request(sim.url, "POST", "/_sim/settings", { body: { allowIps: "10.9.9.9" } });
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).status).toBe(403);
    const state = JSON.parse((await request(sim.url, "GET", "/_sim/state")).body);
    expect(state).toMatchObject({ allowIps: "10.9.9.9", sshKey: false, disabled: [], faults: [] });
    expect(state.vms.map((v: { vmid: number }) => v.vmid)).toEqual([101]);
    expect(state.stats.requests).toMatchObject({ stop: 2 });
    expect(JSON.parse((await request(sim.url, "GET", "/_sim/idle")).body)).toEqual({ idle: true });
  });
});

describe("command line", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGKILL");
    child = undefined;
  });

  test("prints the URL first, serves, obeys --fault and --state, stops on SIGTERM", async () => {
    const stateFile = path.join(dir, "cli.json");
    child = spawn(
      process.execPath,
      [
        "-r",
        path.join(ROOT, "test/fixtures/simulator/register-ts.js"),
        path.join(ROOT, "simulator/cli.ts"),
        "--port",
        "0",
        "--speed",
        "1000",
        "--state",
        stateFile,
        "--max-cpu",
        "4",
        "--fault",
        '{"op":"health","kind":"http","status":503,"body":"down","times":1}',
        "--log",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = "";
      child!.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0] as string);
      });
      child!.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(firstLine).toMatch(/^go-pve-qemu simulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = firstLine.slice("go-pve-qemu simulator listening on ".length);

    const down = await request(url, "GET", "/api/health");
    expect([down.status, down.body]).toEqual([503, "down"]);
    expect((await request(url, "GET", "/api/health")).body).toBe("ok");
    const r = await request(url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 120, cpu: 16 } });
    expect(lines(r.body)).toContain("preparation > validating CPU and RAM|processing|[*] setting CPU to maximum 4");
    expect(JSON.parse(fs.readFileSync(stateFile, "utf8")).vms[0]).toMatchObject({ vmid: 120, cpu: 4 });
    expect(stderr).toContain("[sim] GET /api/health from 127.0.0.1");
    expect(stderr).toMatch(/fault .* \(http\) fired: health/);

    const code = await new Promise<number | null>((resolve) => {
      child!.on("exit", (c) => resolve(c));
      child!.kill("SIGTERM");
    });
    expect(code).toBe(0);
  });

  test("bad flags are refused with the reason and the usage", async () => {
    child = spawn(
      process.execPath,
      [
        "-r",
        path.join(ROOT, "test/fixtures/simulator/register-ts.js"),
        path.join(ROOT, "simulator/cli.ts"),
        "--speed",
        "fast",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child!.on("exit", (c) => resolve(c)));
    expect(code).toBe(2);
    expect(stderr).toContain('--speed expects a number, got "fast"');
    expect(stderr).toContain("usage: go-pve-qemu-sim");
  });
});
