// The bounded id window used to drop replayed frames.
import { IdWindow } from "../../provider/client/stream/dedup";
import { Tail } from "../../provider/client/stream/tail";

test("admits an id once, and forgets the oldest beyond its size", () => {
  const w = new IdWindow(3);
  expect(["a", "b", "a", "c"].map((id) => w.admit(id))).toEqual([true, true, false, true]);
  expect(w.admit("d")).toBe(true); // evicts "a"
  expect(w.admit("a")).toBe(true);
  expect(w.admit("c")).toBe(false);
});

test("stays bounded over a million ids", () => {
  const w = new IdWindow(100);
  for (let i = 0; i < 1_000_000; i++) w.admit(String(i));
  expect((w as unknown as { seen: Set<string> }).seen.size).toBe(100);
  expect(w.admit("999999")).toBe(false);
  expect(w.admit("0")).toBe(true);
});

test("Tail: ring order, truncation marker, and limits", () => {
  const t = new Tail(3, 16);
  expect(t.lines()).toEqual([]);
  for (const l of ["a", "b", "c", "d"]) t.push(l);
  expect(t.lines()).toEqual(["b", "c", "d"]);
  expect([...t.newestFirst()]).toEqual(["d", "c", "b"]);
  t.push("0123456789abcdefXYZ");
  expect(t.lines().at(-1)).toBe("0123456789abcdef… [3 more chars]");
  expect(() => new Tail(0)).toThrow(RangeError);
});
