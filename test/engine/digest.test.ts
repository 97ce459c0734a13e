/**
 * The live digest a saved plan carries (apply --plan refuses when the platform changed since), made by LiveSeen
 * (src/engine/plan/digest.ts): the same objects give the same digest whatever order the concurrent reads finished
 * in, any difference of an address or of an object's fields gives another, plans saved by earlier versions keep
 * theirs, and the digests kept in blocks of 2,048 come back exactly across the blocks' edges.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LiveSeen } from "../../src/engine/plan/index.js";

const ENTRIES: [string, string][] = [
  ['group["acme"]', '{"name":"Acme"}'],
  ['project["acme/api"]', '{"description":"d"}'],
  ['project["acme/api"].badge["docs"]', '{"link_url":"https://x"}'],
  ["instance.application_settings", '{"signup_enabled":false}'],
];

function seen(objects: readonly [string, string][]): LiveSeen {
  const s = new LiveSeen();
  for (const [address, fields] of objects) s.add(address, fields);
  return s;
}
const digest = (objects: readonly [string, string][]) => seen(objects).digest();
const sha = (text: string) => createHash("sha256").update(text).digest("base64");

/** Objects whose addresses sort otherwise than they were recorded, as concurrent reads finish. */
const many = (n: number): [string, string][] =>
  Array.from({ length: n }, (_, i): [string, string] => [`project["g/p${(i * 7919) % n}"]`, `{"i":${i}}`]);

describe("the live digest", () => {
  it("does not depend on the order the objects were read in", () => {
    const d = digest(ENTRIES);
    expect(d).toMatch(/^[0-9a-f]{64}$/);
    expect(digest([...ENTRIES].reverse())).toBe(d);
    expect(digest([ENTRIES[2]!, ENTRIES[0]!, ENTRIES[3]!, ENTRIES[1]!])).toBe(d);
  });

  it("changes with an object's fields, its address, an object more or less", () => {
    const d = digest(ENTRIES);
    const others: [string, string][][] = [
      ENTRIES.map(([a, f], i): [string, string] => [a, i === 1 ? '{"description":"e"}' : f]),
      ENTRIES.map(([a, f], i): [string, string] => [i === 1 ? 'project["acme/web"]' : a, f]),
      ENTRIES.slice(1),
      [...ENTRIES, ['group["other"]', "{}"]],
      [...ENTRIES, ENTRIES[0]!],
    ];
    expect(new Set([d, ...others.map(digest)]).size).toBe(others.length + 1);
  });

  it("keeps two objects' fields apart: swapping them is a change", () => {
    const swapped = ENTRIES.map(([a], i): [string, string] => [a, ENTRIES[(i + 1) % ENTRIES.length]![1]]);
    expect(digest(swapped)).not.toBe(digest(ENTRIES));
    expect(digest([])).not.toBe(digest([["", ""]]));
  });

  it("is the digest plans saved by earlier versions carry for the same objects", () => {
    // Made by the digest of the previous releases (pairs of address and base64 SHA-256 of the fields), on these
    // objects; one address is seen twice, in that order.
    const objects: [string, string][] = [...ENTRIES, ['project["acme/api"]', '{"description":"again"}']];
    expect(digest(objects)).toBe("bb94d5c5b3f53f7c41149eba72d1a6c6d3624ec54c8d585649ee89ce4e9aa653");
    expect(digest([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("of one address seen twice, depends on the order the two were seen in", () => {
    const twice: [string, string][] = [
      ['group["a"]', "{}"],
      ['group["a"]', '{"x":1}'],
    ];
    expect(digest(twice)).not.toBe(digest([...twice].reverse()));
  });
});

describe("LiveSeen's records", () => {
  it.each([0, 1, 2047, 2048, 2049, 4096, 4097])(
    "%i objects come back as recorded, each digest its own",
    (n) => {
      const objects = many(n);
      const s = seen(objects);
      expect(s.size).toBe(n);
      expect(s.entries()).toEqual(objects.map(([a, f]) => [a, sha(f)]));
    },
  );

  it("merges parts in their order, across the blocks' edges, into what one record of all gives", () => {
    const objects = many(4100);
    for (const cuts of [[0], [2048], [2047, 2049], [1, 2048, 4096], [4100]]) {
      const parts: LiveSeen[] = [];
      let from = 0;
      for (const cut of [...cuts, objects.length]) {
        parts.push(seen(objects.slice(from, cut)));
        from = cut;
      }
      const merged = LiveSeen.of(parts);
      expect(merged.size, String(cuts)).toBe(objects.length);
      expect(merged.entries(), String(cuts)).toEqual(seen(objects).entries());
      expect(merged.digest()).toBe(seen(objects).digest());
    }
    expect(LiveSeen.of([]).size).toBe(0);
  });
});
