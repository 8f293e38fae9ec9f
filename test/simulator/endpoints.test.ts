// Plain endpoints pinned to the wire doc: health, list (real shape, GiB
// truncation, filters, disabled entries), status, gin's 404 and the CORS
// middleware's headers.
import { request, useSimulators } from "./helpers";

const start = useSimulators();

const NODE = (name: string, extra: Partial<Record<string, number>> = {}): string =>
  `{"node":"${name}","max_cpu":32,"max_memory":128,"cpu":${extra.cpu ?? 0},"memory":${extra.memory ?? 0},` +
  `"memory_used":${extra.memory_used ?? 0},"disk":100,"running":true}`;

describe("health, 404, CORS", () => {
  test("GET /api/health answers text ok with the CORS middleware's headers", async () => {
    const sim = await start();
    const r = await request(sim.url, "GET", "/api/health");
    expect(r.status).toBe(200);
    expect(r.body).toBe("ok");
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(r.headers["access-control-allow-origin"]).toBe("192.168.0.*");
    expect(r.headers["access-control-allow-methods"]).toBe("GET, POST, OPTIONS");
    expect(r.headers["access-control-allow-headers"]).toBe("Content-Type");
    expect(r.headers["access-control-allow-credentials"]).toBe("true");
  });

  test("an Origin in the server's subnet is echoed, a foreign one gets no allow-origin", async () => {
    const sim = await start();
    const local = await request(sim.url, "GET", "/api/health", { headers: { Origin: "http://192.168.0.50:3000" } });
    expect(local.headers["access-control-allow-origin"]).toBe("http://192.168.0.50:3000");
    const foreign = await request(sim.url, "GET", "/api/health", { headers: { Origin: "http://example.com" } });
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
  });

  test("unknown paths and wrong methods get gin's 404; OPTIONS gets 204", async () => {
    const sim = await start();
    for (const [method, path] of [
      ["GET", "/api/nope"],
      ["POST", "/api/health"],
      ["GET", "/api/vm/install"],
      ["GET", "/api/vm/101/start"],
      ["POST", "/api/vm/101/status"],
    ] as const) {
      const r = await request(sim.url, method, path);
      expect([method, path, r.status, r.body, r.headers["content-type"]]).toEqual([
        method,
        path,
        404,
        "404 page not found",
        "text/plain",
      ]);
    }
    const pre = await request(sim.url, "OPTIONS", "/api/vm/install");
    expect(pre.status).toBe(204);
    expect(pre.body).toBe("");
  });
});

describe("GET /api/vm/list", () => {
  test("an empty cluster: sorted keys cluster, count, data, list", async () => {
    const sim = await start();
    const r = await request(sim.url, "GET", "/api/vm/list");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(r.body).toBe(`{"cluster":[${NODE("pve1")},${NODE("pve2")}],"count":0,"data":[],"list":[]}`);
  });

  test("memory, memory_used and disk are whole GiB, truncated", async () => {
    const sim = await start({
      vms: [
        { vmid: 101, name: "web-101", os: "ubuntu", cpu: 2, memoryMb: 2048, diskGb: 40, running: true },
        { vmid: 102, name: "tiny-102", os: "debian", cpu: 1, memoryMb: 512, diskGb: 16.9, running: false },
        {
          vmid: 103,
          name: "big-103",
          os: "rockylinux",
          cpu: 4,
          memoryMb: 6143,
          diskGb: 20,
          running: true,
          node: "pve2",
        },
      ],
    });
    const r = await request(sim.url, "GET", "/api/vm/list");
    const vm101 = `{"vmid":101,"name":"web-101","os":"ubuntu","running":true,"node":"pve1","cpu":2,"disk":40,"memory":2,"memory_used":0}`;
    const vm102 = `{"vmid":102,"name":"tiny-102","os":"debian","running":false,"node":"pve1","cpu":1,"disk":16,"memory":0,"memory_used":0}`;
    const vm103 = `{"vmid":103,"name":"big-103","os":"rockylinux","running":true,"node":"pve2","cpu":4,"disk":20,"memory":5,"memory_used":1}`;
    const list = `[${vm101},${vm102},${vm103}]`;
    // pve1: 3 of 32 cores = 9.38 %, 2560 MiB of 128 GiB = 1.95 %, 512 MiB used = 0.39 %.
    const pve1 = NODE("pve1", { cpu: 9.38, memory: 1.95, memory_used: 0.39 });
    const pve2 = NODE("pve2", { cpu: 12.5, memory: 4.69, memory_used: 1.17 });
    expect(r.body).toBe(`{"cluster":[${pve1},${pve2}],"count":3,"data":${list},"list":${list}}`);
  });

  test("?disable=1 lists stopped VMs, ?disable=0 running ones; disabled entries show node and os '-'", async () => {
    const sim = await start({
      vms: [
        { vmid: 101, name: "a", running: true },
        { vmid: 102, name: "b", running: false },
      ],
      disabled: [{ vmid: 150, name: "router" }],
    });
    const all = JSON.parse((await request(sim.url, "GET", "/api/vm/list")).body);
    expect(all.list.map((v: { vmid: number }) => v.vmid)).toEqual([101, 102, 150]);
    expect(all.list[2]).toEqual({
      vmid: 150,
      name: "router",
      os: "-",
      running: true,
      node: "-",
      cpu: 0,
      disk: 0,
      memory: 0,
      memory_used: 0,
    });
    const stopped = JSON.parse((await request(sim.url, "GET", "/api/vm/list?disable=1")).body);
    expect(stopped.list.map((v: { vmid: number }) => v.vmid)).toEqual([102]);
    const running = JSON.parse((await request(sim.url, "GET", "/api/vm/list?disable=0")).body);
    expect(running.list.map((v: { vmid: number }) => v.vmid)).toEqual([101]);
    expect(running.count).toBe(1);
  });

  test("an answer reused for an unchanged server is byte for byte a fresh one, and any change shows at once", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }, { vmid: 102 }] });
    const list = async () => (await request(sim.url, "GET", "/api/vm/list")).body;
    const first = await list();
    expect(await list()).toBe(first);
    expect((await request(sim.url, "POST", "/api/vm/101/stop")).body).toBe("ok");
    const stopped = JSON.parse(await list());
    expect(stopped.list.find((v: { vmid: number }) => v.vmid === 101).running).toBe(false);
    expect((await request(sim.url, "POST", "/api/vm/102/destroy")).body).toBe("ok");
    expect(JSON.parse(await list()).list.map((v: { vmid: number }) => v.vmid)).toEqual([101]);
    // the filtered listings are their own answers, not the last one
    expect(JSON.parse((await request(sim.url, "GET", "/api/vm/list?disable=0")).body).list).toEqual([]);
  });

  test("without the .go_qemu_disabled file the list fails with 500 text", async () => {
    const sim = await start({ disabled: null });
    const r = await request(sim.url, "GET", "/api/vm/list");
    expect([r.status, r.body, r.headers["content-type"]]).toEqual([
      500,
      "failed to get VM Map\n",
      "text/plain; charset=utf-8",
    ]);
  });
});

describe("GET /api/vm/:id/status", () => {
  test("the word after `status: ` as text", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }, { vmid: 102 }] });
    const a = await request(sim.url, "GET", "/api/vm/101/status");
    expect([a.status, a.body, a.headers["content-type"]]).toEqual([200, "running", "text/plain; charset=utf-8"]);
    const b = await request(sim.url, "GET", "/api/vm/102/status");
    expect(b.body).toBe("stopped");
  });

  test("a bad VM id is 400 JSON, a missing VM 500 text", async () => {
    const sim = await start();
    const bad = await request(sim.url, "GET", "/api/vm/abc/status");
    expect([bad.status, bad.body, bad.headers["content-type"]]).toEqual([
      400,
      '{"error":"invalid VM ID"}',
      "application/json; charset=utf-8",
    ]);
    const missing = await request(sim.url, "GET", "/api/vm/999/status");
    expect([missing.status, missing.body, missing.headers["content-type"]]).toEqual([
      500,
      "failed to get VM status: exit status 2",
      "text/plain; charset=utf-8",
    ]);
  });

  test("strconv.Atoi accepts a sign and leading zeros", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    expect((await request(sim.url, "GET", "/api/vm/+0101/status")).body).toBe("running");
  });

  test("status is node-local by default: a VM on pve2 is a 500 exit status 2, as the real server answers", async () => {
    const sim = await start({ vms: [{ vmid: 101, node: "pve2", running: true }, { vmid: 102 }] });
    const other = await request(sim.url, "GET", "/api/vm/101/status");
    expect([other.status, other.headers["content-type"], other.body]).toEqual([
      500,
      "text/plain; charset=utf-8",
      "failed to get VM status: exit status 2",
    ]);
    expect((await request(sim.url, "GET", "/api/vm/102/status")).body).toBe("stopped");
    // The list still shows it, on its node.
    const list = JSON.parse((await request(sim.url, "GET", "/api/vm/list")).body);
    expect(list.list.map((v: { vmid: number; node: string }) => [v.vmid, v.node])).toEqual([
      [101, "pve2"],
      [102, "pve1"],
    ]);
  });

  test("statusLocalOnly: false sees every node (not the real server; for old tests)", async () => {
    const sim = await start({ statusLocalOnly: false, vms: [{ vmid: 101, node: "pve2", running: true }] });
    expect((await request(sim.url, "GET", "/api/vm/101/status")).body).toBe("running");
  });
});

describe("gin's trailing-slash redirect", () => {
  test("GET with a trailing slash: 301 to the path without it, Go's HTML body, no CORS headers", async () => {
    const sim = await start();
    const r = await request(sim.url, "GET", "/api/vm/list/?disable=1");
    expect([r.status, r.headers.location, r.headers["content-type"], r.body]).toEqual([
      301,
      "/api/vm/list?disable=1",
      "text/html; charset=utf-8",
      '<a href="/api/vm/list?disable=1">Moved Permanently</a>.\n\n',
    ]);
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect((await request(sim.url, "GET", "/api/vm/101/status/")).status).toBe(301);
  });

  test("POST with a trailing slash: 307, no body, nothing done", async () => {
    const sim = await start({ vms: [{ vmid: 101, running: true }] });
    const r = await request(sim.url, "POST", "/api/vm/101/stop/");
    expect([r.status, r.headers.location, r.headers["content-length"], r.headers["content-type"], r.body]).toEqual([
      307,
      "/api/vm/101/stop",
      "0",
      undefined,
      "",
    ]);
    expect(sim.vm(101)?.running).toBe(true);
  });

  test("a trailing slash on a path no route has without it (or a wrong method) is still gin's 404", async () => {
    const sim = await start();
    expect((await request(sim.url, "GET", "/api/nope/")).status).toBe(404);
    expect((await request(sim.url, "POST", "/api/vm/list/")).status).toBe(404);
    expect((await request(sim.url, "GET", "/api/vm/install/")).status).toBe(404);
  });
});

describe("per-VM calls for a VMID with no config", () => {
  test("the server runs qm over ssh to an empty host: ssh's own words, CRLF included", async () => {
    const sim = await start();
    const ssh = "exit status 255, output: ssh: Could not resolve hostname : Name or service not known\r\n";
    for (const [path, body, text] of [
      ["destroy", undefined, `failed to destroy VM: failed to destroy VM: ${ssh}\n`],
      ["set/cpu", { cpu: 2 }, `failed to edit CPU: [-] failed to set CPU: ${ssh}\n`],
      ["set/memory", { memory: 1024 }, `failed to edit memory: [-] failed to set memory: ${ssh}\n`],
      ["set/disk", { disk: "1G" }, `failed to append disk: failed to append disk: ${ssh}\n`],
    ] as const) {
      const r = await request(sim.url, "POST", `/api/vm/150/${path}`, body ? { body } : {});
      expect([path, r.status, r.body]).toEqual([path, 500, text]);
    }
    const migrate = await request(sim.url, "POST", "/api/vm/150/set/node", { body: { node: "pve2" } });
    expect(migrate.body).toBe(
      'data: {"step":"migrating","status":"processing","message":"  ssh: Could not resolve hostname : Name or service not known"}\n\n' +
        'data: {"message": "[-] failed to migrate VM: [-] failed to perform migrate: exit status 255"}\n\n',
    );
  });
});
