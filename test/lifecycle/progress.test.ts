import { installProgress, streamProgress } from "../../provider/lifecycle/core/progress";
import { redactor } from "../../provider/lifecycle/core/redact";
import { memoryFromList, diskFromList } from "../../provider/lifecycle/observe/listing";
import type { OperationEvent } from "../../provider/client/stream/types";

function capture() {
  const lines: Array<[string, string]> = [];
  return {
    lines,
    reporter: {
      info: (m: string) => lines.push(["info", m]),
      warn: (m: string) => lines.push(["warn", m]),
      debug: (m: string) => lines.push(["debug", m]),
    },
  };
}
const step = (s: string, status: "processing" | "success" | "info" | "error", message: string): OperationEvent => ({
  kind: "step",
  step: s,
  status,
  message,
});

describe("install progress", () => {
  test("18 steps, the migration step only with a node", () => {
    const lines = (withNode: boolean): string[] => {
      const { lines, reporter } = capture();
      const on = installProgress(reporter, redactor([]), withNode);
      on(step("VM initialization > migrating VM", "success", "[+] VM migrated to node pve2 (3.00s)"));
      on(step("VM initialization > finalizing", "success", "[+] done"));
      return lines.map(([, m]) => m);
    };
    expect(lines(true)).toEqual([
      "install [14/18] VM initialization > migrating VM: success (3.00s) - VM migrated to node pve2",
      "install [18/18] VM initialization > finalizing: success - done",
    ]);
    expect(lines(false)).toEqual([
      "install [start] (VM initialization > migrating VM): success (3.00s) - VM migrated to node pve2",
      "install [17/17] VM initialization > finalizing: success - done",
    ]);
  });

  test("a step line takes the message's prefix and duration apart", () => {
    const { lines, reporter } = capture();
    const on = streamProgress("install", reporter, redactor([]));
    on(step("x", "success", "[+] assigned IP: 10.0.0.101/24 (0.00s)"));
    on(step("x", "info", "[*] VM strting"));
    on(step("x", "success", "[+] VM installation completed in 67.83s"));
    expect(lines.map(([, m]) => m)).toEqual([
      "install x: success (0.00s) - assigned IP: 10.0.0.101/24",
      "install x: info - VM strting",
      "install x: success - VM installation completed in 67.83s",
    ]);
  });

  test("step k of n with status and duration; processing lines at debug; secrets redacted", () => {
    const { lines, reporter } = capture();
    const on = installProgress(reporter, redactor(["sup3r-secret"]), false);
    on(step("", "processing", "[*] start VM installation"));
    on(step("preparation > checking VMID", "success", "[+] auto-assigned VMID: 101 (0.02s)"));
    on(step("OS preparation > downloading OS image", "processing", "[*] start downloading OS image"));
    on(step("OS preparation > downloading OS image", "processing", "[*] 50%"));
    on(step("OS preparation > downloading OS image", "success", "[+] completed OS image download (12.50s)"));
    on(step("SSH preparation > checking SSH key", "error", "[-] failed to check user SSH key: x"));
    on(step("SSH preparation > creating SSH key", "success", "[+] successfully created SSH key pair (0.10s)"));
    on(step("SSH initialization", "processing", "  echo sup3r-secret"));
    on({ kind: "raw", text: 'unterminated "json' });
    on(step("VM initialization > finalizing", "success", "[*] IP: 10.0.0.101"));
    expect(lines).toEqual([
      ["debug", "install [start]: start VM installation"],
      ["info", "install [1/17] preparation > checking VMID: success (0.02s) - auto-assigned VMID: 101"],
      ["info", "install [9/17] OS preparation > downloading OS image: start downloading OS image"],
      ["debug", "install [9/17] OS preparation > downloading OS image: 50%"],
      ["info", "install [9/17] OS preparation > downloading OS image: success (12.50s) - completed OS image download"],
      ["warn", "install [10/17] SSH preparation > checking SSH key: error - failed to check user SSH key: x"],
      [
        "info",
        "install [10/17] SSH preparation > checking SSH key: success (0.10s) - successfully created SSH key pair",
      ],
      ["info", "install [15/17] VM initialization > SSH initialization: echo ***"],
      ["debug", 'install [15/17] VM initialization > SSH initialization | unterminated "json'],
      ["info", "install [17/17] VM initialization > finalizing: success - IP: 10.0.0.101"],
    ]);
  });

  test("stream progress for start / reboot / migrate", () => {
    const { lines, reporter } = capture();
    const on = streamProgress("start", reporter, redactor([]));
    on(step("starting VM", "success", "[+] VM started (1.00s)"));
    on(step("migrating", "processing", "copying"));
    on({ kind: "bare", message: "[-] VM is running" });
    expect(lines).toEqual([
      ["info", "start starting VM: success (1.00s) - VM started"],
      ["debug", "start migrating: processing - copying"],
      ["warn", "start: the server refused: [-] VM is running"],
    ]);
  });
});

describe("GiB truncation of the list", () => {
  test("memory: the known MB is kept when it reads back as the listed GiB", () => {
    expect(memoryFromList(2, 2048)).toBe(2048);
    expect(memoryFromList(2, 3000)).toBe(3000);
    expect(memoryFromList(0, 512)).toBe(512);
    expect(memoryFromList(4, 3000)).toBe(4096); // drift: only the listed value is known
    expect(memoryFromList(4, undefined)).toBe(4096);
  });
  test("disk: the known GiB is kept when it truncates to the listed value", () => {
    expect(diskFromList(32, 32)).toBe(32);
    expect(diskFromList(40, 32)).toBe(40);
    expect(diskFromList(16, undefined)).toBe(16);
  });
});

describe("install progress: what the log must not say", () => {
  test("the SSH key error the server recovers from: a debug line, then a warning that says it was recovered", () => {
    const c = capture();
    const on = installProgress(c.reporter, redactor([]), false);
    on(
      step(
        "SSH preparation > checking SSH key",
        "error",
        "[-] failed to check user SSH key: failed to find user SSH public key",
      ),
    );
    expect(c.lines.filter(([l]) => l !== "debug")).toEqual([]);
    on(step("SSH preparation > creating SSH key", "success", "[+] successfully created SSH key pair (0.06s)"));
    const warns = c.lines.filter(([l]) => l === "warn").map(([, m]) => m);
    expect(warns).toEqual([
      'install [10/17] SSH preparation > checking SSH key: recovered - the server had no SSH key pair ("failed to find user SSH public key") and created one',
    ]);
  });

  test("one output line is cut to 4 KB, saying how much was cut; secrets are masked before the cut", () => {
    const c = capture();
    const on = installProgress(c.reporter, redactor(["hunter22"]), false);
    on({ kind: "raw", text: `hunter22 ${"y".repeat(2_000_000)}` });
    const [, msg] = c.lines[0]!;
    expect(msg.length).toBeLessThan(4096 + 100);
    expect(msg).toContain("*** yyy");
    expect(msg).toMatch(/… \[1995908 more characters not shown\]$/);
    on({ kind: "raw", text: "short" });
    expect(c.lines[1]).toEqual(["debug", "install [start] | short"]);
  });
});
