// POST /api/vm/install pinned to the wire doc and the server's code: the
// stream byte for byte, the first-install SSH key error, image cache, clamping
// notices, defaults, body binding failures and the IP refusal.
import { CLOSE, ev, events, frames, lines, request, useSimulators, UBUNTU } from "./helpers";

const start = useSimulators();

const SSH_INIT = 'data: {"step":"SSH initialization","status":"processing","message":"  ';

describe("a successful install", () => {
  test("streams the server's steps, texts and durations in order, then event: close", async () => {
    const sim = await start({ sshKey: true, imageCache: ["ubuntu/24.04"] });
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, id: 101, name: "web", cpu: 2, ram: 2048, disk: "32G", user: "deploy", passwd: "s3cr3t" },
    });
    expect(r.status).toBe(200);
    expect(r.complete).toBe(true);
    expect(r.headers["content-type"]).toBe("text/event-stream");
    expect(r.headers["cache-control"]).toBe("no-cache");
    expect(r.headers["connection"]).toBe("keep-alive");
    expect(r.headers["access-control-allow-headers"]).toBe("Cache-Control");
    expect(r.headers["access-control-allow-origin"]).toBeUndefined();
    expect(r.body).not.toMatch(/^(id|retry):|^:/m);

    const all = frames(r.body);
    expect(all.filter((f) => !f.startsWith(SSH_INIT))).toEqual([
      ev("", "processing", "[*] start VM installation"),
      ev("preparation > checking VMID", "processing", "[*] using specified VMID: 101 (0.00s)"),
      ev("preparation > assigning IP", "success", "[+] assigned IP: 192.168.0.101/24 (0.00s)"),
      ev("preparation > validating CPU and RAM", "success", "[+] CPU and RAM validated (0.00s)"),
      ev("preparation > validating disk size", "success", "[+] disk size validated (0.00s)"),
      ev("preparation > setting default config values", "processing", "[*] set default config values"),
      ev("preparation > setting default config values", "success", "[+] default config values set (0.00s)"),
      ev("preparation > checking storage pool", "processing", "[*] check storage pool: local-zfs"),
      ev("preparation > checking storage pool", "success", "[+] storage pool local-zfs is available (0.12s)"),
      ev("OS preparation > getting OS image", "processing", "[*] OS preparation"),
      ev("OS preparation > getting OS image", "processing", "[*] get OS image download link"),
      ev("OS preparation > getting OS image", "success", "[+] OS image URL obtained (0.00s)"),
      ev("OS preparation > validating OS image URL", "processing", "[*] check OS image URL availability"),
      ev("OS preparation > validating OS image URL", "success", "[+] OS image URL is valid (0.45s)"),
      ev("OS preparation > using OS image", "success", "[+] using OS image (0.00s)"),
      ev("SSH preparation > checking SSH key", "processing", "[*] SSH preparation"),
      ev("SSH preparation > checking SSH key", "success", "[+] completed SSH preparation (0.00s)"),
      ev("VM creation > creating VM", "processing", "[*] VM creation"),
      ev("VM creation > creating VM", "success", "[+] VM created successfully (1.20s)"),
      ev("VM creation > importing disk image", "processing", "[*] import disk image"),
      ev("VM creation > importing disk image", "success", "[+] disk image imported successfully (8.40s)"),
      ev("VM initialization > initializing configuration", "processing", "[*] initializing VM"),
      ev("VM initialization > initializing configuration", "success", "[+] VM initialized successfully (3.10s)"),
      // qm start is reported under the previous step's name.
      ev("VM initialization > initializing configuration", "success", "[+] VM started successfully (0.85s)"),
      ev("VM initialization > waiting for ready", "success", "[*] VM strting"),
      ev("VM initialization > SSH initialization", "processing", "[*] SSH initialization"),
      ev("VM initialization > SSH initialization", "success", "[+] SSH initialization completed (95.00s)"),
      ev("VM initialization > rebooting VM", "processing", "[+] VM rebooting"),
      ev("VM initialization > finalizing", "success", "[+] VM is ready (4.10s)"),
      ev("VM initialization > finalizing", "success", "[+] VM installation completed in 178.22s"),
      ev("VM initialization > finalizing", "success", "[*] VMID: 101"),
      ev("VM initialization > finalizing", "success", "[*] IP: 192.168.0.101"),
      ev("VM initialization > finalizing", "success", "[*] User: deploy"),
      CLOSE,
    ]);

    // The init script's output sits between `[*] SSH initialization` and its success.
    const first = all.findIndex((f) => f.startsWith(SSH_INIT));
    const initLines = all.filter((f) => f.startsWith(SSH_INIT));
    expect(all[first - 1]).toBe(ev("VM initialization > SSH initialization", "processing", "[*] SSH initialization"));
    expect(initLines.length).toBeGreaterThan(20);
    expect(initLines[0]).toBe(SSH_INIT + 'change root password"}');
    // Built by concatenation: quotes, backslashes, tabs and carriage returns go out raw.
    expect(initLines).toContain(SSH_INIT + '\tLANG = "en_US.UTF-8""}');
    expect(initLines).toContain(SSH_INIT + "PS1='\\u@\\h:\\w\\$ '\"}");
    expect(initLines.some((f) => f.includes("\r100  4375"))).toBe(true);
    const unparseable = all.filter((f) => {
      try {
        JSON.parse(f.slice(6));
        return false;
      } catch {
        return true;
      }
    });
    expect(unparseable.length).toBeGreaterThanOrEqual(4);

    expect(sim.vm(101)).toMatchObject({
      name: "web-101",
      os: "ubuntu",
      version: "24.04",
      node: "pve1",
      cpu: 2,
      memoryMb: 2048,
      diskGb: 32,
      running: true,
      user: "deploy",
      ip: "192.168.0.101",
      disabled: false,
    });
    expect(sim.stats()).toMatchObject({ installsStarted: 1, installsSucceeded: 1, installsFailed: 0 });
  });

  test("a fresh server's first install recovers from the SSH key error; the second does not see it", async () => {
    const sim = await start({ vmidPick: "lowest" });
    const first = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "a" } });
    const f = lines(first.body);
    const keyError =
      "SSH preparation > checking SSH key|error|[-] failed to check user SSH key: failed to find user SSH public key";
    const at = f.indexOf(keyError);
    expect(at).toBeGreaterThan(0);
    expect(f.slice(at - 1, at + 5)).toEqual([
      "SSH preparation > checking SSH key|processing|[*] SSH preparation",
      keyError,
      "SSH preparation > creating SSH key|processing|[*] create SSH key",
      "SSH preparation > creating SSH key|success|[+] successfully created SSH key pair (0.06s)",
      "SSH preparation > creating SSH key|success|[+] completed SSH preparation (0.06s)",
      "VM creation > creating VM|processing|[*] VM creation",
    ]);
    expect(f).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 100 (0.02s)");
    expect(f).toContain("OS preparation > downloading OS image|processing|[*] start downloading OS image");
    expect(f).toContain("OS preparation > downloading OS image|success|[+] completed OS image download (42.00s)");
    expect(f).toContain("VM initialization > finalizing|success|[+] VM installation completed in 220.30s");
    expect(f).toContain("VM initialization > finalizing|success|[*] User: ubuntu");
    expect(frames(first.body).at(-1)).toBe(CLOSE);

    const second = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, name: "b" } });
    const s = lines(second.body);
    expect(s.filter((l) => l.includes("|error|"))).toEqual([]);
    expect(s).toContain("OS preparation > using OS image|success|[+] using OS image (0.00s)");
    expect(s).toContain("SSH preparation > checking SSH key|success|[+] completed SSH preparation (0.00s)");
    expect(s).toContain("preparation > checking VMID|success|[+] auto-assigned VMID: 101 (0.02s)");
    expect(sim.vms().map((v) => [v.vmid, v.name])).toEqual([
      [100, "a-100"],
      [101, "b-101"],
    ]);
  });

  test("IP from the gateway's first three octets; name is the VMID when none is given", async () => {
    const sim = await start({ sshKey: true, gateway: "10.1.2.1", imageCache: ["debian/12"] });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { os: "debian", version: "12", id: 120 } });
    expect(lines(r.body)).toEqual(
      expect.arrayContaining([
        "preparation > assigning IP|success|[+] assigned IP: 10.1.2.120/24 (0.00s)",
        "VM initialization > finalizing|success|[*] IP: 10.1.2.120",
        "VM initialization > finalizing|success|[*] User: debian",
      ]),
    );
    expect(sim.vm(120)).toMatchObject({ name: "120", os: "debian", ip: "10.1.2.120", user: "debian" });
  });
});

describe("values the server changes", () => {
  const notices = (body: string): string[] =>
    lines(body).filter((l) => l.startsWith("preparation > validating") && l.includes("|processing|"));

  test("clamping to VM_MAX_CPU, VM_MAX_RAM, VM_MAX_DISK with the server's notices", async () => {
    const sim = await start({ sshKey: true, maxCpu: 8, maxRam: 8192, maxDisk: 100 });
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, id: 130, cpu: 64, ram: 65536, disk: "200G" },
    });
    expect(notices(r.body)).toEqual([
      "preparation > validating CPU and RAM|processing|[*] setting CPU to maximum 8",
      "preparation > validating CPU and RAM|processing|[*] setting RAM to maximum 8192",
      "preparation > validating disk size|processing|[*] setting disk to maximum 100G",
    ]);
    expect(sim.vm(130)).toMatchObject({ cpu: 8, memoryMb: 8192, diskGb: 100 });
  });

  test("the disk maximum applies at or above it (>=)", async () => {
    const sim = await start({ sshKey: true });
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, id: 131, cpu: 2, ram: 1024, disk: "64G" },
    });
    expect(notices(r.body)).toEqual(["preparation > validating disk size|processing|[*] setting disk to maximum 64G"]);
  });

  test("minimums: cpu <= 0 -> 1, ram < 512 -> 512, disk < 16G (or unparseable) -> 16G", async () => {
    const sim = await start({ sshKey: true });
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, id: 132, cpu: -3, ram: 100, disk: "1T" },
    });
    expect(notices(r.body)).toEqual([
      "preparation > validating CPU and RAM|processing|[*] setting CPU to minimum 1",
      "preparation > validating CPU and RAM|processing|[*] setting RAM to minimum 512 for ensure system stability",
      "preparation > validating disk size|processing|[*] setting disk to minimum 16G",
    ]);
    expect(sim.vm(132)).toMatchObject({ cpu: 1, memoryMb: 512, diskGb: 16 });
  });

  test("omitted cpu/ram hit the minimums (validation runs before the defaults); applyDefaultsFirst gives 2/2048", async () => {
    const sim = await start({ sshKey: true });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { os: "rockylinux", version: "9", id: 140 } });
    expect(notices(r.body)).toEqual([
      "preparation > validating CPU and RAM|processing|[*] setting CPU to minimum 1",
      "preparation > validating CPU and RAM|processing|[*] setting RAM to minimum 512 for ensure system stability",
      "preparation > validating disk size|processing|[*] setting disk to minimum 16G",
    ]);
    expect(sim.vm(140)).toMatchObject({ cpu: 1, memoryMb: 512, diskGb: 16, user: "rocky", name: "140" });

    const doc = await start({ sshKey: true, applyDefaultsFirst: true });
    const d = await request(doc.url, "POST", "/api/vm/install", { body: { os: "rockylinux", version: "9", id: 141 } });
    expect(notices(d.body)).toEqual(["preparation > validating disk size|processing|[*] setting disk to minimum 16G"]);
    expect(doc.vm(141)).toMatchObject({ cpu: 2, memoryMb: 2048, diskGb: 16 });
  });
});

describe("install failures before any VM exists", () => {
  test("an unsupported version binds, then fails as an error event at getting OS image", async () => {
    const sim = await start({ sshKey: true });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { os: "ubuntu", version: "18.04" } });
    expect(r.status).toBe(200);
    expect(frames(r.body).slice(-3)).toEqual([
      ev("OS preparation > getting OS image", "processing", "[*] get OS image download link"),
      ev(
        "OS preparation > getting OS image",
        "error",
        "[-] failed to get OS image URL: unsupported Ubuntu Server version: 18.04",
      ),
      CLOSE,
    ]);
    const rocky = await request(sim.url, "POST", "/api/vm/install", { body: { os: "rockylinux", version: "7" } });
    expect(events(rocky.body).at(-1)?.message).toBe(
      "[-] failed to get OS image URL: unsupported RockyLinux version: 7",
    );
    expect(sim.vms()).toEqual([]);
    expect(sim.stats().installsFailed).toBe(2);
  });

  test("a pinned VMID that exists fails at VM creation after the preparation", async () => {
    const sim = await start({ sshKey: true, vms: [{ vmid: 150, name: "other" }] });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: { ...UBUNTU, id: 150 } });
    expect(frames(r.body).slice(-3)).toEqual([
      ev("VM creation > creating VM", "processing", "[*] VM creation"),
      ev("VM creation > creating VM", "error", "[-] failed to create VM: exit status 255"),
      CLOSE,
    ]);
    expect(sim.vm(150)?.name).toBe("other");
  });

  test("no free VMID in ASSIGN_IP_START..ASSIGN_IP_END (configs, disabled entries and IPs in use count)", async () => {
    const sim = await start({
      sshKey: true,
      assignIpStart: 200,
      assignIpEnd: 202,
      vms: [{ vmid: 200 }],
      disabled: [{ vmid: 201, name: "x" }],
      ipsInUse: [202],
    });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: UBUNTU });
    expect(frames(r.body)).toEqual([
      ev("", "processing", "[*] start VM installation"),
      ev("preparation > checking VMID", "error", "[-] failed to find free VMID: cannot find available IP"),
      CLOSE,
    ]);
  });

  test("an inactive storage pool", async () => {
    const sim = await start({ sshKey: true, storages: { "local-zfs": false } });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: UBUNTU });
    expect(frames(r.body).slice(-2)).toEqual([
      ev("preparation > checking storage pool", "error", "[-] storage pool local-zfs does not exist or is inactive"),
      CLOSE,
    ]);
  });
});

describe("install answers that are not a stream", () => {
  const bad = async (body: string): Promise<{ status: number; body: string; type: string | undefined }> => {
    const sim = await start();
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body,
      headers: { "Content-Type": "application/json" },
    });
    return { status: r.status, body: r.body, type: r.headers["content-type"] };
  };
  const msg = (m: string): string => JSON.stringify({ success: false, message: "please check your input:" + m });

  test("missing os and version: 400 JSON with both validator lines", async () => {
    expect(await bad('{"name":"x"}')).toEqual({
      status: 400,
      type: "application/json; charset=utf-8",
      body: msg(
        "Key: 'Config.OS' Error:Field validation for 'OS' failed on the 'required' tag\n" +
          "Key: 'Config.Version' Error:Field validation for 'Version' failed on the 'required' tag",
      ),
    });
  });

  test("an os outside debian/ubuntu/rockylinux", async () => {
    expect((await bad('{"os":"windows","version":"11"}')).body).toBe(
      msg("Key: 'Config.OS' Error:Field validation for 'OS' failed on the 'oneof' tag"),
    );
  });

  test("wrong JSON types (first mismatch wins, field named by its json tag)", async () => {
    expect((await bad('{"os":"ubuntu","version":"24.04","cpu":"2","ram":true}')).body).toBe(
      msg("json: cannot unmarshal string into Go struct field Config.cpu of type int"),
    );
    expect((await bad('{"os":"ubuntu","version":24.04}')).body).toBe(
      msg("json: cannot unmarshal number into Go struct field Config.version of type string"),
    );
    expect((await bad('{"os":"ubuntu","version":"24.04","id":1.5}')).body).toBe(
      msg("json: cannot unmarshal number 1.5 into Go struct field Config.id of type int"),
    );
    expect((await bad("[]")).body).toBe(msg("json: cannot unmarshal array into Go value of type model.Config"));
  });

  test("syntax errors and an empty body read like Go's decoder", async () => {
    expect((await bad("")).body).toBe(msg("EOF"));
    expect((await bad('{"os":"ubuntu"')).body).toBe(msg("unexpected EOF"));
    expect((await bad("os=ubuntu")).body).toBe(msg("invalid character 'o' looking for beginning of value"));
    expect((await bad('{"os" "ubuntu"}')).body).toBe(msg("invalid character '\"' after object key"));
    // Go's encoder escapes <, > and & in JSON strings.
    expect((await bad("<xml/>")).body).toBe(
      '{"success":false,"message":"please check your input:invalid character \'\\u003c\' looking for beginning of value"}',
    );
  });

  test("keys match case-insensitively and null leaves a field alone, as encoding/json does", async () => {
    const sim = await start({ sshKey: true });
    const r = await request(sim.url, "POST", "/api/vm/install", {
      body: '{"OS":"ubuntu","Version":"24.04","ID":160,"cpu":null,"Ram":1024}',
    });
    expect(r.status).toBe(200);
    expect(sim.vm(160)).toMatchObject({ cpu: 1, memoryMb: 1024 });
  });

  test("ALLOW_IPS refusal: one bare line as text/plain, no close", async () => {
    const sim = await start({ allowIps: "10.0.0.7" });
    const r = await request(sim.url, "POST", "/api/vm/install", { body: UBUNTU });
    expect([r.status, r.headers["content-type"], r.body, r.complete]).toEqual([
      200,
      "text/plain; charset=utf-8",
      'data: {"message": "this IP is not allowed to perform this action"}\n\n',
      true,
    ]);
    // gin trusts X-Forwarded-For by default: the listed address gets through.
    const ok = await request(sim.url, "POST", "/api/vm/install", {
      body: { ...UBUNTU, id: 170 },
      headers: { "X-Forwarded-For": "10.0.0.7" },
    });
    expect(ok.headers["content-type"]).toBe("text/event-stream");
    expect(frames(ok.body).at(-1)).toBe(CLOSE);
  });
});
