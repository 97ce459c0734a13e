/**
 * `--shard K/N` as units: what the option accepts, and the assignment every runner of a matrix must compute alike
 * (heaviest top-level target first, each to the least-loaded shard, ties to the lowest shard and then by name).
 */
import { describe, expect, it } from "vitest";
import { parseShard, shardUnits, unitOf } from "../../src/engine/shard.js";
import type { DesiredNode } from "../../src/manifest/model.js";

const at = { file: "m.yaml", line: 1, col: 1 };

/** A node of `collection` with `size - 1` leaf children, so that it weighs `size` objects. */
function node(collection: string, key: string, size = 1): DesiredNode {
  const leaves = Array.from({ length: size - 1 }, (_, i) => node("badges", `b${i}`));
  return {
    collection,
    key,
    state: "present",
    fields: {},
    source: at,
    fieldSources: {},
    children: leaves.length ? { badges: { policy: "warn", items: leaves } } : {},
  };
}

function root(children: Record<string, DesiredNode[]>): DesiredNode {
  return {
    ...node("root", ""),
    children: Object.fromEntries(
      Object.entries(children).map(([k, items]) => [k, { policy: "warn", items }]),
    ),
  };
}

/** Every shard's units, in shard order. */
function assignment(state: DesiredNode, count: number): string[][] {
  return Array.from({ length: count }, (_, k) => [...shardUnits(state, { index: k + 1, count })].sort());
}

describe("parseShard", () => {
  it("reads K/N, with spaces around it and numbers of several digits", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    expect(parseShard(" 3/4 ")).toEqual({ index: 3, count: 4 });
    expect(parseShard("12/34")).toEqual({ index: 12, count: 34 });
    expect(parseShard("1/1")).toEqual({ index: 1, count: 1 });
    expect(parseShard("1000/1000")).toEqual({ index: 1000, count: 1000 });
  });

  it("refuses anything else, saying what it takes", () => {
    for (const bad of [
      "0/4",
      "5/4",
      "1/0",
      "0/0",
      "1/1001",
      "x2/4",
      "2/4x",
      "2/4/1",
      "2",
      "",
      "-1/4",
      "1.5/4",
    ]) {
      expect(() => parseShard(bad), bad).toThrow(
        new Error(`--shard must be K/N with 1 <= K <= N <= 1000 (e.g. 2/4), not ${JSON.stringify(bad)}`),
      );
    }
  });
});

describe("shardUnits", () => {
  it("names a target by the first segment of its path, in lower case", () => {
    expect(unitOf("Acme/Platform/api")).toBe("acme");
    expect(unitOf("solo")).toBe("solo");
  });

  it("gives the heaviest targets first to the least-loaded shard, ties to the lowest shard", () => {
    // Weights: a 10, b 6, c 5, d 4, e 1 (a's group and a project under it count together).
    const state = root({
      groups: [node("groups", "a", 7), node("groups", "b", 6), node("groups", "D", 4)],
      projects: [node("projects", "a/x", 3), node("projects", "c/y", 5), node("projects", "e/z", 1)],
    });
    // Loads after each: a -> 1 (10, 0), b -> 2 (10, 6), c -> 2 (10, 11), d -> 1 (14, 11), e -> 2 (14, 12).
    expect(assignment(state, 2)).toEqual([
      ["a", "d"],
      ["b", "c", "e"],
    ]);
    // Three shards: a -> 1 (10), b -> 2 (6), c -> 3 (5), d -> 3 (9), e -> 2 (7).
    expect(assignment(state, 3)).toEqual([["a"], ["b", "e"], ["c", "d"]]);
  });

  it("weighs every instance-level collection together as one target", () => {
    const state = root({
      groups: [node("groups", "g", 5)],
      system_hooks: [node("system_hooks", "h1"), node("system_hooks", "h2", 2)],
      broadcast_messages: [node("broadcast_messages", "m", 3)],
    });
    // instance weighs 6, more than g's 5: it goes first, to shard 1.
    expect(assignment(state, 2)).toEqual([["instance"], ["g"]]);
  });

  it("orders targets of equal weight by name, so every runner computes the same shards", () => {
    const state = root({ groups: ["c", "a", "b", "d"].map((k) => node("groups", k, 2)) });
    expect(assignment(state, 2)).toEqual([
      ["a", "c"],
      ["b", "d"],
    ]);
    expect(assignment(state, 3)).toEqual([["a", "d"], ["b"], ["c"]]);
  });

  it("leaves a shard empty when there are more shards than targets", () => {
    const state = root({ groups: [node("groups", "only", 3)] });
    expect(assignment(state, 3)).toEqual([["only"], [], []]);
  });
});
