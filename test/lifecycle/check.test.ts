import { check, UNKNOWN } from "../../provider/lifecycle";

const ok = { os: "ubuntu", version: "24.04" };

function reasons(news: unknown, olds: unknown = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of check(olds, news).failures) out[f.property] = f.reason;
  return out;
}

describe("check", () => {
  test("minimal and full valid inputs pass", () => {
    expect(check({}, ok).failures).toEqual([]);
    const full = {
      ...ok,
      name: "web-1",
      vmid: 101,
      node: "pve2",
      cpu: 4,
      memoryMb: 4096,
      diskGb: 40,
      user: "deploy",
      password: "s3cret-Pass",
      sshPublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm me@host",
      running: false,
      rebootTriggers: ["a", "b"],
      connection: {
        endpoint: "https://pve:8443",
        token: "tok",
        headers: { "x-a": "b" },
        caCert: "-----BEGIN CERTIFICATE-----\nx",
      },
      destroyOnCreateFailure: true,
    };
    const r = check({}, full);
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual(full);
  });

  test.each([
    ["os", { os: "windows" }, 'os: "windows" is not supported; allowed debian, ubuntu, rockylinux'],
    ["os", { os: undefined }, "os: is required; allowed debian, ubuntu, rockylinux"],
    ["version", { version: "25.04" }, 'version: "25.04" is not supported for ubuntu; allowed 20.04, 22.04, 24.04'],
    ["version", { os: "debian", version: "24.04" }, 'version: "24.04" is not supported for debian; allowed 11, 12, 13'],
    ["version", { os: "rockylinux", version: "7" }, "allowed 8, 9, 10"],
    ["version", { version: 24 }, "version: 24 is not a string"],
    ["version", { version: undefined }, "version: is required"],
    ["cpu", { cpu: 64 }, "cpu: 64 is out of range; allowed 1..32"],
    ["cpu", { cpu: 0 }, "cpu: 0 is out of range; allowed 1..32"],
    ["cpu", { cpu: 2.5 }, "cpu: 2.5 is not an integer; allowed 1..32"],
    ["cpu", { cpu: "4" }, 'cpu: "4" is not a number; allowed 1..32'],
    ["memoryMb", { memoryMb: 256 }, "memoryMb: 256 is out of range; allowed 512..32768"],
    ["memoryMb", { memoryMb: 65536 }, "memoryMb: 65536 is out of range; allowed 512..32768"],
    ["memoryMb", { memoryMb: 1000.5 }, "memoryMb: 1000.5 is not an integer"],
    ["diskGb", { diskGb: 8 }, "diskGb: 8 is too small; allowed integers >= 16"],
    ["diskGb", { diskGb: 20.5 }, "diskGb: 20.5 is not an integer"],
    [
      "vmid",
      { vmid: 99 },
      "vmid: 99 is out of range; allowed 100..254 (the VMID is also the last octet of the VM's IP)",
    ],
    ["vmid", { vmid: 255 }, "vmid: 255 is out of range; allowed 100..254"],
    ["vmid", { vmid: 101.5 }, "vmid: 101.5 is not an integer"],
    [
      "name",
      { name: "web_1" },
      'name: "web_1" is not allowed; use letters, digits and hyphens (not first or last), at most 59 characters',
    ],
    ["name", { name: "-web" }, "is not allowed"],
    ["name", { name: "web-" }, "is not allowed"],
    ["name", { name: "a".repeat(60) }, "at most 59 characters"],
    ["name", { name: "" }, "is not allowed"],
    [
      "node",
      { node: "pve 2" },
      'node: "pve 2" is not allowed; use letters, digits and hyphens (not first or last), at most 63 characters',
    ],
    ["node", { node: 7 }, "node: 7 is not a string"],
    ["user", { user: "Bob" }, 'user: "Bob" is not a valid Linux user name; use lowercase letters, digits, "_" and "-"'],
    ["user", { user: "1abc" }, "is not a valid Linux user name"],
    ["user", { user: "a".repeat(33) }, "at most 32 characters"],
    ["password", { password: "" }, "password: must be at least 8 characters (omit it to get a generated one)"],
    ["password", { password: "1234567" }, "password: must be at least 8 characters (omit it to get a generated one)"],
    ["password", { password: 1234 }, "password: must be a string (its value is not shown)"],
    ["password", { password: "line1\nline2" }, "password: must not contain newlines or control characters"],
    ["sshPublicKey", { sshPublicKey: "not a key\nat all" }, "sshPublicKey: is not one OpenSSH public key line"],
    ["running", { running: "yes" }, 'running: "yes" is not a boolean; allowed true or false'],
    ["rebootTriggers", { rebootTriggers: "v1" }, 'rebootTriggers: "v1" is not a list; allowed a list of strings'],
    [
      "rebootTriggers",
      { rebootTriggers: ["a", 2] },
      "rebootTriggers: item 2 is not a string; allowed a list of strings",
    ],
    [
      "connection.endpoint",
      { connection: { endpoint: "ftp://x" } },
      'connection.endpoint: "ftp://x" is not an http(s) URL',
    ],
    ["connection.endpoint", { connection: { endpoint: "pve:8080" } }, "is not an http(s) URL"],
    ["connection.token", { connection: { token: 5 } }, "connection.token: must be a string (its value is not shown)"],
    [
      "connection.headers",
      { connection: { headers: { a: 1 } } },
      "connection.headers: must be an object of string values",
    ],
    ["connection.caCert", { connection: { caCert: "hello" } }, "connection.caCert: is not PEM text"],
    ["connection", { connection: "http://x" }, 'connection: "http://x" is not an object'],
    ["destroyOnCreateFailure", { destroyOnCreateFailure: 1 }, "destroyOnCreateFailure: 1 is not a boolean"],
  ])("%s: %j", (property, patch, expected) => {
    const r = reasons({ ...ok, ...patch });
    expect(Object.keys(r)).toEqual([property]);
    expect(r[property]).toContain(expected);
  });

  test("every bad property is reported at once", () => {
    const r = check(
      { diskGb: 40 },
      {
        os: "ubuntu",
        version: "99",
        cpu: 64,
        memoryMb: 100,
        diskGb: 32,
        vmid: 300,
        name: "bad_name",
        node: "bad node",
        user: "Root",
        running: "no",
        rebootTriggers: [1],
        connection: { endpoint: "nope" },
      },
    );
    expect(r.failures.map((f) => f.property).sort()).toEqual(
      [
        "connection.endpoint",
        "cpu",
        "diskGb",
        "memoryMb",
        "name",
        "node",
        "rebootTriggers",
        "running",
        "user",
        "version",
        "vmid",
      ].sort(),
    );
    // disk: the schema accepts 32; the shrink rule names both sizes
    expect(r.failures.find((f) => f.property === "diskGb")?.reason).toBe(
      "diskGb cannot shrink from 40 to 32: the server can only grow a disk; keep 40 or more, or replace the VM",
    );
  });

  test("a disk may stay or grow; shrink compares with the old inputs only", () => {
    expect(reasons({ ...ok, diskGb: 40 }, { diskGb: 40 })).toEqual({});
    expect(reasons({ ...ok, diskGb: 50 }, { diskGb: 40 })).toEqual({});
    expect(reasons({ ...ok, diskGb: 20 }, {})).toEqual({});
    expect(reasons({ ...ok }, { diskGb: 40 })).toEqual({}); // omitted: nothing to compare
  });

  test("unknown values are not validated", () => {
    for (const key of [
      "os",
      "version",
      "name",
      "vmid",
      "node",
      "cpu",
      "memoryMb",
      "diskGb",
      "user",
      "password",
      "sshPublicKey",
      "running",
      "rebootTriggers",
      "connection",
      "destroyOnCreateFailure",
    ]) {
      const r = check({ diskGb: 100 }, { ...ok, [key]: UNKNOWN });
      expect({ key, failures: r.failures }).toEqual({ key, failures: [] });
      expect((r.inputs as Record<string, unknown>)[key]).toBe(UNKNOWN);
    }
    expect(check({}, { ...ok, connection: { endpoint: UNKNOWN, token: UNKNOWN } }).failures).toEqual([]);
    expect(check({}, { ...ok, rebootTriggers: ["a", UNKNOWN] }).failures).toEqual([]);
    // unknown os: the version cannot be judged
    expect(check({}, { os: UNKNOWN, version: "7" }).failures).toEqual([]);
  });

  test("null means omitted; unrelated keys are dropped", () => {
    const r = check({}, { ...ok, cpu: null, name: null, ip: "x", vmName: "y" });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual(ok);
  });

  test("secrets never appear in messages", () => {
    const secret = "hunter2-\u0001-very-secret";
    const r = check({}, { ...ok, password: secret, connection: { token: 42 } });
    const text = JSON.stringify(r.failures);
    expect(text).not.toContain("hunter2");
    expect(text).toContain("password: must not contain");
  });

  test("with options, a missing endpoint names the three ways to set it", () => {
    const r = check({}, ok, { connectionDefaults: {} });
    expect(r.failures).toEqual([
      {
        property: "connection.endpoint",
        reason: expect.stringMatching(/^connection\.endpoint: no go-pve-qemu endpoint is set; set one of: /),
      },
    ]);
    expect(r.failures[0]!.reason).toMatch(/connection\.endpoint.*goPveQemu:endpoint.*GO_PVE_QEMU_ENDPOINT/);
    expect(check({}, ok, { connectionDefaults: { endpoint: "http://h:1" } }).failures).toEqual([]);
    expect(check({}, { ...ok, connection: { endpoint: "http://h:1" } }, { connectionDefaults: {} }).failures).toEqual(
      [],
    );
    expect(check({}, { ...ok, connection: { endpoint: UNKNOWN } }, { connectionDefaults: {} }).failures).toEqual([]);
    expect(check({}, ok).failures).toEqual([]);
  });

  test("the rollout's inputs: a group name and a flag, each named with what is allowed", () => {
    const r = reasons({ ...ok, downtimeGroup: "web servers", allowDowntime: "no" });
    expect(r.downtimeGroup).toBe(
      'downtimeGroup: "web servers" is not allowed; use letters, digits and hyphens (not first or last), at most 63 characters (a name for VMs that may not all be down at once)',
    );
    expect(r.allowDowntime).toBe('allowDowntime: "no" is not a boolean; allowed true or false');
    expect(check({}, { ...ok, downtimeGroup: "web", allowDowntime: false }).failures).toEqual([]);
  });

  test("inputs that are not an object", () => {
    expect(check({}, "x").failures[0]).toEqual({ property: "", reason: 'the inputs are "x", not an object' });
  });

  test("a property the resource does not have is refused, with the known names", () => {
    const r = reasons({ ...ok, cpus: 4, colour: "blue" });
    expect(r.cpus).toMatch(
      /^cpus: is not an input of Vm \(did you mean cpu\?\); the inputs are os, version, name, vmid/,
    );
    expect(r.cpus).toContain("keepIncompleteInstall, downtimeGroup, allowDowntime, adopt");
    expect(r.colour).toMatch(/^colour: is not an input of Vm; the inputs are os,/);
    // an unknown property empty in value is not a property at all
    expect(check({}, { ...ok, cpus: null }).failures).toEqual([]);
  });

  test("a malformed default endpoint is reported at check, naming where it came from", () => {
    const r = check({}, ok, {
      connectionDefaults: { endpoint: "10.0.0.5:8080" },
      defaultEndpointSource: "stack config goPveQemu:endpoint",
    });
    expect(r.failures).toEqual([
      {
        property: "connection.endpoint",
        reason:
          'connection.endpoint: stack config goPveQemu:endpoint is "10.0.0.5:8080", which is not an http(s) URL; give one such as http://10.0.0.5:8080',
      },
    ]);
    // the resource's own endpoint wins over a malformed default
    const own = { ...ok, connection: { endpoint: "http://10.0.0.5:8080" } };
    expect(check({}, own, { connectionDefaults: { endpoint: "nonsense" } }).failures).toEqual([]);
    expect(check({}, ok, { connectionDefaults: { endpoint: "https://pve.example:8443/" } }).failures).toEqual([]);
  });

  test("an endpoint with a user name or password is refused at preview, and never shown with them", () => {
    const own = check({}, { ...ok, connection: { endpoint: "http://admin:s3cret-pw@10.0.0.5:8080" } });
    expect(own.failures).toHaveLength(1);
    expect(own.failures[0]!.property).toBe("connection.endpoint");
    expect(own.failures[0]!.reason).toMatch(
      /^connection\.endpoint: "http:\/\/\*\*\*@10\.0\.0\.5:8080": it carries a user name or password .* put the credentials in connection\.headers .* or connection\.token/,
    );
    const fromConfig = check({}, ok, {
      connectionDefaults: { endpoint: "https://ops@pve.example:8443/gpq" },
      defaultEndpointSource: "stack config goPveQemu:endpoint",
    });
    expect(fromConfig.failures).toEqual([
      {
        property: "connection.endpoint",
        reason: expect.stringMatching(
          /^connection\.endpoint: stack config goPveQemu:endpoint is "https:\/\/\*\*\*@pve\.example:8443\/gpq": it carries a user name/,
        ),
      },
    ]);
    for (const r of [own, fromConfig]) {
      expect(JSON.stringify(r.failures)).not.toMatch(/s3cret-pw|admin|ops@/);
    }
  });
});
