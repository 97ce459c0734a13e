/**
 * AddressList: the addresses a plan keeps to its end (compared and in sync, live objects seen), in blocks of 2,048
 * joined into one string each. What comes back is what was recorded, in order, across the blocks' edges.
 */
import { describe, expect, it } from "vitest";
import { AddressList } from "../../../src/engine/plan/addresses.js";

const many = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `group["g${from + i}"].projects["g${from + i}/p"]`);

describe("AddressList", () => {
  it.each([0, 1, 2047, 2048, 2049, 4096, 4097])("gives back %i addresses as recorded", (n) => {
    const addresses = many(n);
    const list = AddressList.from(addresses);
    expect(list.size).toBe(n);
    expect(list.toArray()).toEqual(addresses);
    expect([...list]).toEqual(addresses);
  });

  it("keeps empty addresses and addresses that differ only in length", () => {
    const addresses = ["", "a", "", "a.b", ""];
    expect(AddressList.from(addresses).toArray()).toEqual(addresses);
    const full = [...many(2047), ""];
    expect(AddressList.from(full).toArray()).toEqual(full);
  });

  it("merges parts in their order, across the blocks' edges, and goes on recording after them", () => {
    const addresses = many(4100);
    for (const cuts of [[0], [2048], [2047, 2049], [1, 2048, 4096], [4100]]) {
      const parts: AddressList[] = [];
      let from = 0;
      for (const cut of [...cuts, addresses.length]) {
        parts.push(AddressList.from(addresses.slice(from, cut)));
        from = cut;
      }
      const merged = AddressList.of(parts);
      expect(merged.size, String(cuts)).toBe(4100);
      expect(merged.toArray(), String(cuts)).toEqual(addresses);
      merged.push("after");
      expect(merged.toArray().slice(-2), String(cuts)).toEqual([addresses.at(-1), "after"]);
      // The parts are left as they were.
      expect(parts.reduce((n, p) => n + p.size, 0)).toBe(4100);
      expect(parts.flatMap((p) => p.toArray())).toEqual(addresses);
    }
    expect(AddressList.of([]).toArray()).toEqual([]);
  });

  it("refuses an address holding a line break, which would split it in two", () => {
    const list = AddressList.from(["a"]);
    expect(() => list.push('group["a\nb"]')).toThrow(/line break/);
    expect(list.toArray()).toEqual(["a"]);
  });
});
