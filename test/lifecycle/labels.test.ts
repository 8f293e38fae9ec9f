// How messages name a VM and a duration: one formatter for every message.
import { duration, vmLabel } from "../../provider/lifecycle/core/labels";

test("vmLabel: the real name and the VMID, or the VMID alone", () => {
  expect(vmLabel(101, "web-101")).toBe("web-101 (101)");
  expect(vmLabel(101, "101")).toBe("101");
  expect(vmLabel(101)).toBe("101");
});

test.each([
  [0, "0 ms"],
  [800, "800 ms"],
  [1_000, "1 s"],
  [1_540, "1.5 s"],
  [9_960, "10 s"],
  [45_400, "45 s"],
  [119_000, "119 s"],
  [120_000, "2 min"],
  [270_000, "4.5 min"],
  [1_866_000, "31.1 min"],
])("duration(%d) is %s", (ms, text) => {
  expect(duration(ms)).toBe(text);
});
