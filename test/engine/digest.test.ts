/**
 * The live digest a saved plan carries (apply --plan refuses when the platform changed since): the same objects
 * give the same digest whatever order the concurrent reads finished in, and any difference of an address or of an
 * object's fields gives another.
 */
import { describe, expect, it } from "vitest";
import { digestLive } from "../../src/engine/plan/index.js";

const ENTRIES: [string, string][] = [
  ['group["acme"]', "f1"],
  ['project["acme/api"]', "f2"],
  ['project["acme/api"].badge["docs"]', "f3"],
  ["instance.application_settings", "f4"],
];

describe("digestLive", () => {
  it("does not depend on the order the objects were read in", () => {
    const digest = digestLive(ENTRIES);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digestLive([...ENTRIES].reverse())).toBe(digest);
    expect(digestLive([ENTRIES[2]!, ENTRIES[0]!, ENTRIES[3]!, ENTRIES[1]!])).toBe(digest);
  });

  it("changes with an object's fields, its address, an object more or less", () => {
    const digest = digestLive(ENTRIES);
    const others: [string, string][][] = [
      ENTRIES.map(([a, f], i): [string, string] => [a, i === 1 ? "f2'" : f]),
      ENTRIES.map(([a, f], i): [string, string] => [i === 1 ? 'project["acme/web"]' : a, f]),
      ENTRIES.slice(1),
      [...ENTRIES, ['group["other"]', "f5"]],
      // The same text split otherwise between address and fields.
      ENTRIES.map(([a, f], i): [string, string] => (i === 0 ? [`${a}f`, "1"] : [a, f])),
    ];
    const digests = others.map(digestLive);
    expect(new Set([digest, ...digests]).size).toBe(others.length + 1);
  });

  it("keeps two objects' fields apart: swapping them is a change", () => {
    const swapped = ENTRIES.map(([a], i): [string, string] => [a, ENTRIES[(i + 1) % ENTRIES.length]![1]]);
    expect(digestLive(swapped)).not.toBe(digestLive(ENTRIES));
    expect(digestLive([])).not.toBe(digestLive([["", ""]]));
  });
});
